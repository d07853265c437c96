import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-i FILE -j K`: a list of URLs through the download queue.
@Suite struct BatchTests {
    static let files = (0..<20).map { testBytes(count: 96 * 1024, seed: UInt64(300 + $0)) }

    func server() throws -> TestServer {
        let files = BatchTests.files
        return try TestServer(TestServer.Configuration(rate: { _ in 384 * 1024 })) { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
    }

    @Test func twentyURLsFourAtATime() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var list = "# the files\n\n"
        for index in 0..<20 { list += "  \(server.url("/f\(index)"))  \n" }
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: false)
        let result = try runProcess(
            try fastgetExecutable(), ["-i", "urls.txt", "-j", "4", "-n", "1", "-d", "out"],
            in: directory.path, timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        for index in 0..<20 {
            #expect(SHA256.hex(ofFile: directory.file("out/f\(index)")) == SHA256.hex(BatchTests.files[index]))
        }
        #expect(result.stderr.hasSuffix("fastget: 20 of 20 downloads complete\n"), "\(result.stderr)")
        let (files, most) = server.mostFilesAtOnce()
        #expect(files == 20 && most <= 4 && most >= 2, "\(most) at once")
    }

    @Test func readsStandardInputAndExitsWithTheFirstFailure() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = [server.url("/f1"), server.url("/missing"), server.url("/f2")].joined(separator: "\n")
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(shell, ["-c", "'\(try fastgetExecutable())' -q -j 2 -i - < urls.txt"], in: directory.path, timeout: 60)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("/missing: server answered 404"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f1")) == SHA256.hex(BatchTests.files[1]))
        #expect(SHA256.hex(ofFile: directory.file("f2")) == SHA256.hex(BatchTests.files[2]))
    }

    @Test(arguments: [
        (["-i", "u.txt", "http://h/"], "fastget: error: give URLs either with -i or on the command line, not both\n"),
        (["-i", "u.txt", "-o", "x"], "fastget: error: -o names one file; with -i use -d DIR\n"),
        (["-i", "u.txt", "-j", "0"], "fastget: error: option -j must be between 1 and 64 (got 0)\n"),
    ])
    func refusesContradictions(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
        #expect(result.status == 64 && result.stderr == message + "hint: see fastget --help\n")
    }

    @Test func aCRLFListDownloadsEveryLine() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "# two files\r\n\(server.url("/f3"))\r\n\r\n\(server.url("/f4"))\r\n".write(
            toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        let result = try runProcess(try fastgetExecutable(), ["-i", "urls.txt", "-n", "1"], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f3")) == SHA256.hex(BatchTests.files[3]))
        #expect(SHA256.hex(ofFile: directory.file("f4")) == SHA256.hex(BatchTests.files[4]))
        #expect(result.stderr.hasSuffix("fastget: 2 of 2 downloads complete\n"), "\(result.stderr)")
    }

    @Test func anOversizeLineOrALineBreakInAURLIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ("http://127.0.0.1:9/" + String(repeating: "a", count: 64 << 10) + "\n").write(
            toFile: directory.file("long.txt"), atomically: true, encoding: .utf8)
        for (path, name) in [("long.txt", "long.txt"), ("/dev/zero", "/dev/zero")] {
            let result = try runProcess(try fastgetExecutable(), ["-i", path], in: directory.path, timeout: 20)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr == "fastget: error: \(name) line 1 is longer than 64 KiB; the rest of the list is not read\n", "\(result.stderr)")
        }
        try "http://127.0.0.1:9/a\rInjected: 1\n".write(toFile: directory.file("cr.txt"), atomically: true, encoding: .utf8)
        let injected = try runProcess(try fastgetExecutable(), ["-i", "cr.txt"], in: directory.path, timeout: 20)
        #expect(injected.status == 64 && injected.stderr.contains("control character 0xd in URL"), "\(injected.stderr)")
    }

    @Test func aListFromAFIFOStopsAtCtrlC() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("urls")
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Spawned(try fastgetExecutable(), ["-i", fifo], in: directory.path)
        // Its end is open for writing once fastget holds the other (signals blocked by then).
        var writer: Int32 = -1
        run.wait(upTo: 10) {
            writer = open(fifo, O_WRONLY | O_NONBLOCK)
            return writer >= 0
        }
        #expect(writer >= 0)
        defer { if writer >= 0 { close(writer) } }
        _ = "http://127.0.0.1:9/not-yet-a-wh".withCString { write(writer, $0, strlen($0)) } // half a line
        run.signal(SIGINT)
        let exited = run.waitForExit(10)
        if !exited {
            run.signal(SIGKILL)
            _ = run.waitForExit(10)
        }
        #expect(exited, "Ctrl-C ended the wait for the list")
        #expect(run.status == 130)
        #expect(run.stderr == "fastget: interrupted; run the same command again to resume\n", "\(run.stderr)")
    }

    /// A FIFO list in `directory`, with fastget (`arguments`, then `-i FIFO`) reading it and
    /// the test holding its writing end.
    func streamedList(_ arguments: [String], in directory: TemporaryDirectory) throws -> (Spawned, Int32) {
        let fifo = directory.file("urls")
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Spawned(try fastgetExecutable(), arguments + ["-i", fifo], in: directory.path)
        var writer: Int32 = -1
        run.wait(upTo: 10) {
            writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC) // no other test's child may hold it open
            return writer >= 0
        }
        try #require(writer >= 0)
        return (run, writer)
    }

    func ended(_ run: Spawned) -> Bool {
        if run.waitForExit(30) { return true }
        run.signal(SIGKILL)
        _ = run.waitForExit(10)
        return false
    }

    @Test func aStreamedListNeverGivesASavedFilesNameToAnotherURL() throws {
        let (first, second) = (BatchTests.files[5], BatchTests.files[6])
        let server = try TestServer { request in .file(TestFile(request.target.hasPrefix("/x/") ? first : second)) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (run, writer) = try streamedList(["--overwrite", "-n", "1"], in: directory)
        _ = (server.url("/x/same.bin") + "\n").withCString { write(writer, $0, strlen($0)) }
        // The second line comes only once the first file is saved and its journal gone.
        run.wait(upTo: 30) {
            SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(first)
                && !FileManager.default.fileExists(atPath: directory.file("same.bin.fastget"))
        }
        _ = (server.url("/y/same.bin") + "\n").withCString { write(writer, $0, strlen($0)) }
        close(writer)
        #expect(ended(run))
        #expect(run.status == 73)
        let message = "same.bin is already the destination of \(server.url("/x/same.bin")); not downloading \(server.url("/y/same.bin")) there"
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(first))
        #expect(server.requests.allSatisfy { $0.target == "/x/same.bin" }, "\(server.requests.map(\.target))")
    }

    @Test func aFIFOListIsClosedAtItsEnd() throws {
        let slow = try TestServer(TestServer.Configuration(rate: { _ in 1024 })) { _ in .file(TestFile(BatchTests.files[7])) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (run, writer) = try streamedList(["-n", "1"], in: directory)
        _ = (slow.url("/f7") + "\n").withCString { write(writer, $0, strlen($0)) }
        close(writer)
        // Once the end is read, a later writer finds no reader (ENXIO) rather than having its
        // lines taken and never read; the download of the first line is still running.
        var refused = false
        run.wait(upTo: 10) {
            let late = open(directory.file("urls"), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if late >= 0 { close(late) }
            refused = late < 0 && errno == ENXIO
            return refused
        }
        #expect(refused)
        run.signal(SIGINT)
        #expect(ended(run))
        #expect(run.status == 130, "\(run.stderr)")
    }

    @Test func aClosedStandardInputIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(shell, ["-c", "'\(try fastgetExecutable())' -i - <&-"], in: directory.path, timeout: 20)
        #expect(result.status == 66)
        #expect(result.stderr == "fastget: error: cannot read standard input: Bad file descriptor\n", "\(result.stderr)")
    }
}
