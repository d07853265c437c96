import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Work stealing by remaining time: an idle connection takes the second half of the range that
/// would finish last, and the slow connection stops exactly where its range now ends.
@Suite struct StealingTests {
    let data = testBytes(count: 4 << 20, seed: 31)

    @Test func idleConnectionsTakeOverTheSlowConnectionsTail() throws {
        // Four segments; the connection accepted fourth crawls at 128 KiB/s, the others at 4 MiB/s.
        let server = try TestServer(
            file: TestFile(data),
            TestServer.Configuration(rate: { index in
                index == 3 ? 128 * 1024 : 4 * 1_048_576
            }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.steals >= 1)
        // Each stolen range starts where a planned one ends or inside one, never before byte 0,
        // and every range request after the probe's GET (which defines the version) carried If-Range.
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.count == 4 + report.steals + report.hedges + report.hedgesLost)
        #expect(gets.first?.header("Range") == "bytes=0-")
        #expect(gets.dropFirst().allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
        // The bytes the server sent beyond the file are only what a victim had in flight when
        // it stopped at its new end.
        #expect(server.waitUntilIdle())
        let served = server.responses.filter { $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
        #expect(served <= Int64(data.count) + Int64(report.steals) * (1 << 20), "served \(served)")
    }

    @Test func stealingAndHedgingOffKeepOneRequestPerSegment() throws {
        let server = try TestServer(
            file: TestFile(data),
            TestServer.Configuration(rate: { index in
                index == 3 ? 1_048_576 : 8 * 1_048_576
            }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        options.stealsWork = false
        options.hedgesTails = false
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.steals == 0)
        #expect(server.requests.filter { $0.method == "GET" }.count == 4)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test func aStalledTailIsStolenAtOnce() throws {
        // Two segments of 4 MiB. The second one's answer sends all but its last 128 KiB at
        // loopback speed, then stalls (as a connection does that spent a per-second allowance)
        // until another request for part of it arrives. The first connection is paced at
        // 16 MiB/s, so its worker becomes a thief a quarter of a second in, long after the
        // stall began, measuring 16 MiB/s: by speed alone the tail looks 8 ms from done; its
        // silence says otherwise.
        let data = testBytes(count: 8 << 20, seed: 47)
        let half = Int64(4 << 20)
        let held: Int64 = 128 * 1024
        let stolen = DispatchSemaphore(value: 0)
        let file = TestFile(data)
        let paced = TestServer.Configuration(rate: { $0 == 0 ? 16 * 1_048_576 : nil })
        let server = try TestServer(paced) { request in
            guard let value = request.header("Range"), value.hasPrefix("bytes=") else { return .file(file) }
            let bounds = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            guard let first = Int64(bounds[0]) else { return .file(file) }
            if first > half { stolen.signal() }
            guard first == half else { return .file(file) }
            let head =
                "HTTP/1.1 206 Partial Content\r\nETag: \"fastget-test-1\"\r\n"
                + "Content-Range: bytes \(half)-\(data.count - 1)/\(data.count)\r\nContent-Length: \(half)\r\n\r\n"
            let sent = Array(head.utf8) + data[Int(half)..<(data.count - Int(held))]
            return .staged(head: sent) {
                _ = stolen.wait(timeout: .now() + 10) // bounded: the test fails, it does not hang
                return Array(data[(data.count - Int(held))...])
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 1 << 20
        options.hedgesTails = false
        // The coordinator measures speeds once per progress tick (its first measurement at the
        // second tick): at one every two seconds, the stall would show in the speeds after four,
        // so only the silence can prompt the steal within two. (The thief's own 4 MiB take a
        // quarter of a second at its pace, and up to a second and a half in a debug build on a
        // loaded machine: the bound leaves room for that and none for a steal by speed.)
        options.progressPeriod = .seconds(2)
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.steals >= 1)
        let gets = server.requests.filter { $0.method == "GET" }
        let victim = try #require(gets.first { $0.header("Range")?.hasPrefix("bytes=\(half)-") == true })
        let steal = try #require(
            gets.first { request in
                guard let value = request.header("Range"), let first = Int64(value.dropFirst(6).split(separator: "-")[0]) else { return false }
                return first > Int64(data.count) - held
            })
        // The silence that marks it stalled is 50 ms (two round trips here are less); a steal
        // by the burst's fading speed would come seconds after it.
        #expect(steal.received - victim.received < 2.0, "the stalled tail was stolen \(steal.received - victim.received) s after its request")
    }
}
