@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// `--speed-limit`/`--speed-time`: a body that crawls ends as a timeout (exit 75) that resumes,
/// and a single crawling connection among fast ones is dropped and its range fetched again.
@Suite struct LowSpeedTests {
    let data = testBytes(count: 300_000, seed: 73)

    /// Trickles every GET (1 byte each 200 ms: 5 bytes/s) until `heal()`.
    final class Crawl: Sendable {
        let healthy = Atomic<Bool>(false)
        func heal() { healthy.store(true, ordering: .releasing) }
    }

    /// The file's validator, for the crawling answers: the same version as the healthy ones.
    static func validator(of file: TestFile) -> [String] {
        [file.etag.map { "ETag: \($0)" }, file.lastModified.map { "Last-Modified: \($0)" }].compactMap { $0 }
    }

    func crawlingServer(_ crawl: Crawl, ranges: Bool = true) throws -> TestServer {
        var file = TestFile(data)
        file.honorsRange = ranges
        file.advertisesRanges = ranges
        return try TestServer { [data, file] request in
            guard request.method == "GET", !crawl.healthy.load(ordering: .acquiring) else { return .file(file) }
            return .trickling(data, for: request, interval: 0.2, ranges: ranges, fields: LowSpeedTests.validator(of: file))
        }
    }

    @Test(arguments: [
        ["--speed-limit", "1000", "--speed-time", "1"],
        ["-Y", "1000", "-y", "1"],
        ["--lowest-speed-limit=1000", "--speed-time=1"],
    ])
    func aCrawlingBodyFailsAsATimeoutAndTheRerunFetchesOnlyTheRest(limit: [String]) throws {
        let crawl = Crawl()
        let server = try crawlingServer(crawl)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "1"] + limit + ["-o", "out.bin", server.url()]
        let (result, seconds) = try timedFastget(arguments, in: directory, timeout: 30)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: the download stayed below 1000 bytes/s for 1 s ("), "\(result.stderr)")
        #expect(result.stderr.contains("hint: run the same command again to resume (journal: out.bin.fastget)"), "\(result.stderr)")
        // A speed time of 1 s; the 300,000 bytes would take 17 hours.
        #expect(seconds < 10, "took \(seconds) s")
        #expect(FileManager.default.fileExists(atPath: directory.file("out.bin.fastget")))

        crawl.heal()
        server.clearRecords()
        let rerun = try timedFastget(arguments, in: directory, timeout: 30).result
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        // Only what the first run did not keep: one range from its watermark to the end.
        let ranges = server.requests.filter { $0.method == "GET" }.compactMap { $0.header("Range") }
        #expect(ranges.count == 1, "\(ranges)")
        let start = try #require(ranges.first.flatMap { Int($0.dropFirst(6).prefix { $0 != "-" }) })
        #expect(start > 0 && ranges.first == "bytes=\(start)-\(data.count - 1)", "\(ranges)")
        #expect(server.responses.filter { $0.method == "GET" }.map(\.bodyBytes) == [Int64(data.count - start)])
    }

    /// With the speed time alone the limit is 1 byte per second (curl's): a body that stops is
    /// dropped after that time, not after the 30 s read timeout.
    @Test func theSpeedTimeAloneEndsABodyThatStops() throws {
        let server = try TestServer { [data] request in
            guard request.method == "GET" else { return .file(TestFile(data)) }
            return .trickling(data, for: request, interval: 60)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(["-q", "-n", "1", "-y", "1", "-o", "out.bin", server.url()], in: directory, timeout: 30)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: the download stayed below 1 byte/s for 1 s ("), "\(result.stderr)")
        #expect(result.stderr.contains("), the low-speed limit\n"), "\(result.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
    }

    /// A single stream (no ranges) and a download to standard output have no journal, but the
    /// same limit: exit 75 once the whole download crawls.
    @Test(arguments: [false, true])
    func aCrawlingSingleStreamOrStandardOutputFailsAsATimeout(toStandardOutput: Bool) throws {
        let server = try crawlingServer(Crawl(), ranges: toStandardOutput)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = toStandardOutput ? ["-o", "-"] : ["-o", "out.bin"]
        let (result, seconds) = try timedFastget(
            ["-q", "--speed-limit", "1000", "--speed-time", "1"] + output + [server.url()], in: directory,
            stdout: toStandardOutput ? directory.file("stdout.bin") : nil, timeout: 30)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: the download stayed below 1000 bytes/s for 1 s ("), "\(result.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
    }

    /// One connection crawls while three others are fast: it is dropped after the speed time,
    /// the rest of its range comes over another connection, and no retry is spent on it.
    @Test func aCrawlingConnectionAmongFastOnesIsDroppedAndItsRangeFetchedAgain() throws {
        let data = testBytes(count: 4 << 20, seed: 74)
        let file = TestFile(data)
        let third = "bytes=\(2 << 20)-\((3 << 20) - 1)"
        let once = DropPlan(afterBytes: 0)
        // 512 KiB/s a connection: the fast ones still deliver when the crawling one is judged.
        let server = try TestServer(TestServer.Configuration(rate: { _ in 512 * 1024 })) { request in
            guard request.method == "GET", request.header("Range") == third, once.take() else { return .file(file) }
            return .trickling(data, for: request, interval: 0.2, fields: LowSpeedTests.validator(of: file))
        }
        let (report, directory, output) = try download(server.url(), segments: 4) { options in
            options.minimumSegmentSize = 1 << 20
            options.speedLimit = 1000
            options.speedWindow = .seconds(1)
        }
        defer { directory.remove() }
        let finished = try report.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(finished.retries == 0)
        // The crawling request, then the rest of its range from where it stopped, on another connection.
        let crawled = server.requests.filter { $0.header("Range")?.hasSuffix("-\((3 << 20) - 1)") == true }
        #expect(crawled.count == 2, "\(crawled.map { $0.header("Range")! })")
        if crawled.count == 2 {
            #expect(crawled[0].header("Range") == third)
            let start = try #require(Int(crawled[1].header("Range")!.dropFirst(6).prefix { $0 != "-" }))
            #expect(start >= 2 << 20 && start < (2 << 20) + 100, "\(start)")
            #expect(crawled[1].connection != crawled[0].connection)
        }
    }
}
