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
        #expect(lines.contains("plan       4 ranges: 0-2097151, 2097152-4194303, 4194304-6291455, 6291456-8388607"), "\(lines)")
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
}
