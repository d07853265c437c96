import Fastget
@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// `fastget --json`: every stdout line is a JSON object, and the event sequence tells the story.
@Suite struct JSONOutputTests {
    let data = testBytes(count: 2 << 20, seed: 81)

    func run(_ arguments: [String], _ directory: TemporaryDirectory) throws -> (status: Int32, events: [[String: Any]], stdout: String) {
        let result = try runProcess(try fastgetExecutable(), ["--json"] + arguments, in: directory.path, timeout: 60)
        var events: [[String: Any]] = []
        for line in result.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            events.append(try #require(object as? [String: Any], "not an object: \(line)"))
        }
        return (result.status, events, result.stdout)
    }

    func names(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    @Test func aSuccessIsStartProgressAndDone() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 4 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, events, _) = try run(["-n", "4", "--checksum", "sha-256=" + SHA256.hex(data), "-o", "j.bin", server.url()], directory)
        #expect(status == 0)
        let sequence = names(events)
        #expect(sequence.first == "start" && sequence.last == "done", "\(sequence)")
        #expect(sequence.filter { $0 == "done" || $0 == "error" }.count == 1)
        #expect(sequence.contains("progress"))
        let start = events[0]
        #expect(start["length"] as? Int == data.count && start["validator"] as? String == "\"fastget-test-1\"")
        // 2 MiB in segments of at least 1 MiB: two of them.
        #expect(start["segments"] as? [[Int]] == [[0, 1 << 20], [1 << 20, 2 << 20]] && (start["url"] as? String) == server.url())
        let progress = try #require(events.first { $0["event"] as? String == "progress" })
        let segments = try #require(progress["segments"] as? [[String: Any]])
        #expect(segments.count >= 2 && segments.allSatisfy { $0["start"] is Int && $0["written"] is Int && $0["state"] is String })
        let done = try #require(events.last)
        #expect(done["path"] as? String == "j.bin" && done["bytes"] as? Int == data.count && done["seconds"] is Double)
        #expect(done["total_seconds"] as? Double == done["seconds"] as? Double) // a first run: no earlier time
        #expect(done["sha256"] as? String == SHA256.hex(data))
    }

    @Test func aDroppedConnectionShowsARetry() throws {
        var file = TestFile(data)
        file.drop = DropPlan(afterBytes: 100_000, times: 1)
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, events, _) = try run(["-n", "2", "-o", "r.bin", server.url()], directory)
        #expect(status == 0)
        let retry = try #require(events.first { $0["event"] as? String == "retry" }, "\(names(events))")
        #expect(retry["attempt"] as? Int == 1 && retry["code"] as? String == "temporary")
        #expect(names(events).last == "done" && events.last?["retries"] as? Int == 1)
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
    }

    @Test func aSlowConnectionShowsASteal() throws {
        // The second worker's connection (the first is the probe's) crawls: the other takes over its tail.
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { $0 == 1 ? 256 * 1024 : 8 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, events, _) = try run(["-n", "2", "-o", "s.bin", server.url()], directory)
        #expect(status == 0)
        let sequence = names(events)
        #expect(sequence.contains("steal") || sequence.contains("hedge"), "\(sequence)")
        if let steal = events.first(where: { $0["event"] as? String == "steal" }) {
            let start = steal["start"] as? Int ?? 0, end = steal["end"] as? Int ?? 0
            #expect(start > 0 && start < end && end <= data.count)
        }
        #expect(sequence.last == "done")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
    }

    @Test func aFailureEndsWithOneErrorLine() throws {
        let server = try TestServer { _ in .status(404, body: "gone") }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, events, _) = try run(["-o", "x.bin", server.url("/x")], directory)
        #expect(status == 66)
        #expect(names(events) == ["error"])
        #expect(events[0]["code"] as? String == "not-found" && events[0]["exit_code"] as? Int == 66)
        #expect((events[0]["message"] as? String)?.hasPrefix("server answered 404") == true)
    }

    @Test func aListThatCannotBeReadEndsWithAnErrorLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ("http://127.0.0.1:9/" + String(repeating: "a", count: 64 << 10) + "\n").write(
            toFile: directory.file("long.txt"), atomically: true, encoding: .utf8)
        let (status, events, _) = try run(["-i", "long.txt"], directory)
        #expect(status == 64)
        #expect(names(events) == ["error"])
        #expect(events.first?["exit_code"] as? Int == 64)
        #expect(events.first?["message"] as? String == "long.txt line 1 is longer than 64 KiB; the rest of the list is not read")
        let (failed, failure, _) = try run(["-i", "."], directory)
        #expect(failed == 66 && names(failure) == ["error"])
        #expect(failure.first?["message"] as? String == "cannot read .: Is a directory")
    }

    @Test func stringsAreEscaped() throws {
        #expect(JSON.quoted("a\"b\\c\nd\u{01}é") == "\"a\\\"b\\\\c\\nd\\u0001é\"")
    }
}
