import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// "Run the same command again" completes an interrupted `-i` list: the files an earlier run
/// completed (marked with their URL, validator and time) count as done; one changed since
/// does not.
@Suite struct BatchResumeTests {
    let small = testBytes(count: 512 * 1024, seed: 121)
    let large = testBytes(count: 6 << 20, seed: 122)

    func server() throws -> TestServer {
        let (small, large) = (TestFile(small), TestFile(large))
        // The large file crawls, so that an interrupt finds it half done.
        return try TestServer(TestServer.Configuration(rate: { _ in 2 * 1_048_576 })) { request in
            .file(request.target.hasPrefix("/a") ? small : large)
        }
    }

    @Test func anInterruptedListCompletesOnTheSameCommand() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "\(server.url("/a.bin"))\n\(server.url("/b.bin"))\n".write(toFile: directory.file("list"), atomically: true, encoding: .utf8)
        let arguments = ["-n", "2", "--checkpoint-interval", "0.1", "-i", "list"]
        let run = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        run.wait(upTo: 10) {
            FileManager.default.fileExists(atPath: directory.file("a.bin")) && FileManager.default.fileExists(atPath: directory.file("b.bin.fastget"))
        }
        run.signal(SIGINT)
        #expect(run.waitForExit(20))
        #expect(run.status == 130)
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("fastget: a.bin is already complete\n"), "\(rerun.stderr)")
        #expect(rerun.stderr.hasSuffix("fastget: 2 of 2 downloads complete\n"), "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(small))
        #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(large))
    }

    @Test func aCompletedFileIsDoneForTheSameURLButNotOnceChanged() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try runProcess(try fastgetExecutable(), ["-q", server.url("/a.bin")], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        server.clearRecords()
        let again = try runProcess(try fastgetExecutable(), [server.url("/a.bin")], in: directory.path)
        #expect(again.status == 0 && again.stderr.contains("a.bin is already complete"), "\(again.stderr)")
        #expect(server.requests.allSatisfy { $0.method == "HEAD" || $0.header("Range") == "bytes=0-0" }, "only a probe")
        // Written since (same length): no longer known to be the download.
        let handle = try #require(FileHandle(forWritingAtPath: directory.file("a.bin")))
        try handle.write(contentsOf: Data([0x41]))
        try handle.close()
        let changed = try runProcess(try fastgetExecutable(), [server.url("/a.bin")], in: directory.path)
        #expect(changed.status == 73 && changed.stderr.contains("a.bin already exists"), "\(changed.stderr)")
        // Another URL to the same name is not this download either.
        try Data(small).write(to: URL(fileURLWithPath: directory.file("c.bin")))
        let foreign = try runProcess(try fastgetExecutable(), ["-o", "c.bin", server.url("/a.bin")], in: directory.path)
        #expect(foreign.status == 73, "\(foreign.stderr)")
    }
}
