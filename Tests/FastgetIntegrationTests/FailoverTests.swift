import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// `fastget DEAD-URL MIRROR-URL`: when the first URL cannot be reached, the next mirror that
/// answers serves the file; the name and the journal still come from the first URL.
@Suite struct FailoverTests {
    let data = testBytes(count: 8 << 20, seed: 73)

    /// A URL on a port nothing listens on (bound a moment ago, then closed): refused.
    private func deadURL() throws -> String { "http://127.0.0.1:\(try freeLoopbackPort())/r.bin" }

    @Test func aRefusedFirstURLFailsOverToTheNextMirror() throws {
        let dead = try deadURL()
        let (standIn, other) = (try TestServer(file: TestFile(data)), try TestServer(file: TestFile(data)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", dead, standIn.url("/r.bin"), other.url("/r.bin")], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data), "named after the first URL")
        let port = URL(string: dead)!.port!
        #expect(
            result.stderr.hasPrefix(
                "fastget: connection refused by 127.0.0.1:\(port); downloading from the mirror \(standIn.url("/r.bin")) instead\n"),
            "\(result.stderr)")
        // The other mirror is a mirror as ever: both serve ranges.
        for server in [standIn, other] {
            #expect(server.requests.contains { $0.header("Range") != nil && $0.header("Range") != "bytes=0-" })
        }
    }

    /// Killed while the stand-in serves it, the download resumes on the rerun: the journal is
    /// the first URL's, and the rerun asks the mirror only for what is missing.
    @Test func aRerunResumesWhatTheStandInServed() throws {
        let dead = try deadURL()
        let mirror = try MirrorResumeTests.Mirror(data, etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", dead, mirror.server.url()]
        let journal = try MirrorResumeTests().runAndKill(arguments, in: directory, mirror)
        #expect(journal.url == dead)
        mirror.server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        // No byte the journal claims is asked again. (Not the sum of the ranges: a steal asks
        // again for the tail of a range in flight, so the ranges may overlap each other.)
        let asked = mirror.rangeRequests.compactMap { $0.header("Range") }.map { value -> ClosedRange<Int64> in
            let ends = value.dropFirst("bytes=".count).split(separator: "-").compactMap { Int64($0) }
            return ends.count == 2 ? ends[0]...ends[1] : 0...Int64(data.count - 1)
        }
        let done = journal.segments.filter { $0.written > $0.start }.map { $0.start...($0.written - 1) }
        #expect(!asked.isEmpty && asked.allSatisfy { range in !done.contains { $0.overlaps(range) } }, "\(asked) against \(done)")
        #expect(mirror.rangeRequests.allSatisfy { $0.header("If-Range") == "\"b\"" })
    }

    @Test func whenNoMirrorAnswersTheFirstURLsErrorStands() throws {
        let (dead, deadMirror) = (try deadURL(), try deadURL())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), [dead, deadMirror], in: directory.path, timeout: 60)
        let (port, mirrorPort) = (URL(string: dead)!.port!, URL(string: deadMirror)!.port!)
        #expect(result.status == 69)
        #expect(
            result.stderr
                == "fastget: mirror \(deadMirror) cannot stand in for \(dead): connection refused by 127.0.0.1:\(mirrorPort)\n"
                + "fastget: error: connection refused by 127.0.0.1:\(port)\n")
    }

    /// `-o -` fails over the same way: the stand-in's bytes go out in order.
    @Test func standardOutputFailsOverToo() throws {
        let dead = try deadURL()
        let mirror = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(
            shell, ["-c", "'\(try fastgetExecutable())' -n 4 -o - '\(dead)' '\(mirror.url("/r.bin"))' | sha256sum"], in: directory.path,
            timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(SHA256.hex(data) + " "), "\(result.stdout)")
        #expect(result.stderr.contains("; downloading from the mirror \(mirror.url("/r.bin")) instead\n"), "\(result.stderr)")
    }

    /// A server that keeps failing (503 after the retries, none here) is failed over too.
    @Test func aFirstURLStillFailingAfterItsRetriesFailsOver() throws {
        let primary = try TestServer { _ in .status(503, body: "busy") }
        let mirror = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["--retries", "0", primary.url("/r.bin"), mirror.url("/r.bin")], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(
            result.stderr.hasPrefix(
                "fastget: server answered 503 Status for \(primary.url("/r.bin")); downloading from the mirror \(mirror.url("/r.bin")) instead\n"),
            "\(result.stderr)")
        #expect(primary.requests.count == 1, "asked once, as --retries 0 says")
    }

    /// Ctrl-C while the last mirror is probed is the user's stop (130), not that mirror's
    /// failure to stand in.
    @Test func ctrlCWhileTheLastMirrorIsProbedIsAStop() throws {
        let dead = try deadURL()
        let mirror = try TestServer { _ in .hang }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try Spawned(try fastgetExecutable(), [dead, mirror.url("/r.bin")], in: directory.path)
        run.wait(upTo: 10) { !mirror.requests.isEmpty }
        try #require(!mirror.requests.isEmpty, "the mirror is being probed")
        run.signal(SIGINT)
        #expect(run.waitForExit(20))
        let stderr = run.stderr
        #expect(run.status == 130, "\(stderr)")
        #expect(!stderr.contains("cannot stand in"), "\(stderr)")
    }

    /// `--dry-run` fails over as the run would: the plan is the stand-in's.
    @Test func aDryRunFailsOverAsTheRunWould() throws {
        let dead = try deadURL()
        let mirror = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--dry-run", "-n", "4", dead, mirror.url("/r.bin")], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("url        \(mirror.url("/r.bin"))\n"), "\(result.stdout)")
        #expect(result.stdout.contains("name       r.bin\n"), "the first URL's name: \(result.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// The only mirror given stands in for the URL: no mirror is left to trust by its length,
    /// so no notice says so.
    @Test func aLoneStandInGetsNoNoticeAboutMirrorsWithoutADigest() throws {
        let dead = try deadURL()
        let mirror = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["-n", "4", dead, mirror.url("/r.bin")], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("no digest to check the mirrors' bytes"), "\(result.stderr)")
    }

    /// Without -o the file keeps the first URL's name, where a rerun finds its journal: the
    /// stand-in's Content-Disposition does not rename it.
    @Test func aStandInsContentDispositionDoesNotNameTheFile() throws {
        let dead = try deadURL()
        var file = TestFile(data)
        file.extraFields = ["Content-Disposition: attachment; filename=\"other.bin\""]
        let mirror = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["-q", dead, mirror.url("/m.bin")], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["r.bin"])
    }

    /// A 404 is the first URL's answer about the file, not a server that is down.
    @Test func aNotFoundFirstURLDoesNotFailOver() throws {
        let primary = try TestServer { _ in .status(404) }
        let mirror = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), [primary.url("/r.bin"), mirror.url("/r.bin")], in: directory.path, timeout: 60)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(mirror.requests.isEmpty)
    }
}
