import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `--dry-run` (`--spider`): the probe only, and what a run would do; nothing is written.
@Suite struct DryRunTests {
    let data = testBytes(count: 8 << 20, seed: 131)

    @Test func printsThePlanAndWritesNothing() throws {
        var file = TestFile(data)
        file.etag = "\"v1\""
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--dry-run", "-n", "4", server.url("/d.bin")], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("url        \(server.url("/d.bin"))"), "\(lines)")
        #expect(lines.contains("length     \(data.count) (8.00 MiB)") && lines.contains("ranges     yes"), "\(lines)")
        #expect(lines.contains("validator  ETag \"v1\"") && lines.contains("name       d.bin"), "\(lines)")
        #expect(lines.contains("plan       4 ranges: 0-2097151, 2097152-4194303, 4194304-6291455, 6291456-8388607; 4 connections"), "\(lines)")
        #expect(lines.contains("journal    none"), "\(lines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written")
        #expect(server.requests.allSatisfy { $0.method == "HEAD" }, "the probe alone")
    }

    @Test func saysWhatAJournalWouldResumeAsOneJSONObject() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("j.bin")
        options.segments = 2
        let first = try Download(url: server.url(), options: options)
        first.onEvent { event in
            if case .checkpoint(let bytes) = event, bytes > 0 { first.pause() }
        }
        #expect(throws: FastgetError.self) { try first.run() }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let result = try runProcess(try fastgetExecutable(), ["--spider", "--json", "-o", "j.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(object["event"] as? String == "dry_run" && object["name"] as? String == "j.bin" && object["exists"] as? Bool == false)
        let journal = try #require(object["journal"] as? [String: Any])
        #expect(journal["state"] as? String == "resumable" && (journal["bytes_on_disk"] as? Int ?? 0) > 0, "\(journal)")
        #expect((object["plan"] as? [[Int]])?.isEmpty == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before, "nothing touched")
    }

    /// The count the dry run reports is the count the run decides from, for every kind of plan.
    @Test func theDryRunPlansTheConnectionsTheRunUses() throws {
        let big = try TestServer(file: TestFile(data))
        let small = try TestServer(file: TestFile(testBytes(count: 3 << 20, seed: 132)))
        let tiny = try TestServer(file: TestFile(testBytes(count: 100_000, seed: 133)))
        var plain = TestFile(data)
        (plain.honorsRange, plain.advertisesRanges) = (false, false)
        let rangeless = try TestServer(file: plain)
        var unsized = TestFile(data)
        (unsized.framing, unsized.honorsRange, unsized.advertisesRanges) = (.untilClose, false, false)
        let unknown = try TestServer(file: unsized)
        #expect(try planned(big) == .automatic(upTo: 16))
        #expect(try planned(big, segments: 1) == .fixed(1))
        #expect(try planned(small, segments: 8) == .fixed(3), "one per segment of at least 1 MiB")
        #expect(try planned(rangeless, segments: 8) == .fixed(1))
        #expect(try planned(unknown) == .fixed(1))
        #expect(try planned(tiny) == .fixed(1), "one request")
        #expect(try planned(big, segments: 8, cap: 4) == .fixed(8), "the cap bounds an automatic count only")
        #expect(try planned(big, cap: 4) == .automatic(upTo: 4))
        #expect(try planned(big, inOrder: true) == .fixed(8))
        #expect(try planned(big, cap: 4, inOrder: true) == .fixed(4))
        // Another host (localhost, not 127.0.0.1) adds its own cap.
        let mirror = big.url().replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(try planned(big, cap: 4, mirrors: [mirror]) == .automatic(upTo: 8))
    }

    /// Runs `dryRun()` then `run()` with the same options; returns the count both planned.
    private func planned(
        _ server: TestServer, segments: Int? = nil, cap: Int = 16, inOrder: Bool = false, mirrors: [String] = []
    ) throws -> DownloadPlan.Connections? {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = segments
        options.mirrors = mirrors
        options.output = directory.file("p.bin")
        let sink = try #require(FileHandle(forWritingAtPath: "/dev/null"))
        defer { try? sink.close() }
        if inOrder { options.outputDescriptor = sink.fileDescriptor }
        let session = try Session(maximumConnectionsPerHost: cap)
        let plan = try Download(url: server.url(), options: options, session: session).dryRun()
        let report = try Download(url: server.url(), options: options, session: session).run()
        #expect(plan.connections == report.plannedConnections, "\(server.url()) -n \(segments.map(String.init) ?? "auto")")
        return report.plannedConnections
    }

    /// `-o -` fetches 512 KiB units over eight connections; the dry run says so.
    @Test func saysTheCountOfAStreamToStandardOutput() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--dry-run", "-o", "-", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let plan = "plan       16 ranges: 0-524287, 524288-1048575, 1048576-1572863, 1572864-2097151, …; 8 connections"
        #expect(result.stdout.split(separator: "\n").contains { $0 == plan }, "\(result.stdout)")
    }

    /// A file of unknown length comes in one stream, whatever `-n` says.
    @Test func saysAFileOfUnknownLengthComesInOneStream() throws {
        var file = TestFile(data)
        (file.framing, file.honorsRange, file.advertisesRanges) = (.untilClose, false, false)
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--dry-run", "-n", "4", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").contains { $0 == "plan       one stream (the server serves no byte ranges)" }, "\(result.stdout)")
    }
}
