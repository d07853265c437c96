import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Ctrl-C is the user's own action: the command says what is kept and how to go on, not
/// "error"; a download that could never resume leaves nothing behind.
@Suite struct InterruptMessageTests {
    let data = testBytes(count: 8 << 20, seed: 99)

    /// Runs fastget with `arguments` until `ready` says so from its progress, interrupts it,
    /// and returns its exit status and standard error.
    func interrupt(_ arguments: [String], in directory: TemporaryDirectory, ready: () -> Bool) throws -> (Int32, String) {
        let run = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        run.wait(upTo: 8, until: ready)
        run.signal(SIGINT)
        #expect(run.waitForExit(20))
        return (run.status, run.stderr)
    }

    @Test func aPauseSaysWhatIsKeptAndHowToGoOn() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, stderr) = try interrupt(["-n", "2", "--checkpoint-interval", "0.1", "-o", "p.bin", server.url()], in: directory) {
            // A checkpoint that claims bytes (the first journal claims none).
            FileManager.default.contents(atPath: directory.file("p.bin.fastget")).flatMap { try? Journal.decode(Array($0)) }.map {
                $0.bytesWritten > 0
            } == true
        }
        #expect(status == 130)
        let line = try #require(stderr.split(separator: "\n").last.map(String.init), "\(stderr)")
        #expect(line.hasPrefix("fastget: paused: ") && line.contains(" of 8.00 MiB kept; run the same command again to resume"), "\(stderr)")
        #expect(!stderr.contains("error"), "\(stderr)")
        // The rerun's summary: the speed of what this run fetched, the resumed bytes apart.
        let rerun = try runProcess(try fastgetExecutable(), ["-n", "2", "-o", "p.bin", server.url()], in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let summary = try #require(rerun.stderr.split(separator: "\n").last.map(String.init), "\(rerun.stderr)")
        #expect(summary.hasPrefix("fastget: saved p.bin (8.00 MiB; ") && summary.contains(" fetched in "), "\(summary)")
        #expect(summary.contains(", 2 connections") && summary.hasSuffix(" resumed)"), "\(summary)")
    }

    @Test func aStreamThatCannotResumeSaysSoAndLeavesNothing() throws {
        var file = TestFile(data)
        (file.honorsRange, file.advertisesRanges) = (false, false)
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (status, stderr) = try interrupt(["-o", "s.bin", server.url()], in: directory) {
            FileManager.default.fileExists(atPath: directory.file("s.bin.part"))
        }
        #expect(status == 130)
        #expect(stderr.contains("fastget: stopped; nothing is kept: the server does not serve byte ranges"), "\(stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no .part that could never resume")
    }
}
