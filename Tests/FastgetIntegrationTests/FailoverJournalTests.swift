import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A stand-in for a URL that is down, when the destination holds that URL's journal: it serves
/// the rest only if it could serve as a mirror of that journal; otherwise the URL's error
/// stands and the journal and its `.part` stay as they were, for the URL to resume.
@Suite struct FailoverJournalTests {
    let data = testBytes(count: 8 << 20, seed: 74)

    /// The stand-ins a journal of `data` with ETag "u1" cannot take, and the reason each gets.
    enum Refused: String, CaseIterable {
        case otherLength, otherVersion, noRanges
    }

    /// A run of `url` (ETag "u1") killed with part of the file in; then the URL goes down.
    private func interruptedRun(in directory: TemporaryDirectory) throws -> (primary: MirrorResumeTests.Mirror, journal: [UInt8]) {
        let primary = try MirrorResumeTests.Mirror(data, etag: "\"u1\"")
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", primary.server.url()]
        let journal = try MirrorResumeTests().runAndKill(arguments, in: directory, primary)
        #expect(journal.bytesWritten > 0 && journal.bytesWritten < data.count)
        primary.server.stop()
        return (primary, try #require(FileManager.default.contents(atPath: directory.file("r.bin.fastget"))).map { $0 })
    }

    @Test(arguments: Refused.allCases)
    func aStandInThatCouldNotServeTheJournalLeavesItAlone(_ kind: Refused) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (primary, journal) = try interruptedRun(in: directory)
        let part = SHA256.hex(ofFile: directory.file("r.bin.part"))
        var file = TestFile(kind == .otherLength ? testBytes(count: 7 << 20, seed: 75) : testBytes(count: data.count, seed: 75))
        file.etag = kind == .otherVersion ? "\"mx\"" : "\"u1\""
        if kind == .noRanges { (file.honorsRange, file.advertisesRanges) = (false, false) }
        let standIn = try TestServer(file: file)
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", "-o", "r.bin", primary.server.url(), standIn.url("/r.bin")], in: directory.path,
            timeout: 60)
        let reason =
            switch kind {
            case .otherLength: "it has \(7 << 20) bytes, not \(data.count) as r.bin.fastget records"
            case .otherVersion:
                "its version (ETag \"mx\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT) is not the one r.bin.fastget records (ETag \"u1\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT)"
            case .noRanges: "it does not serve byte ranges, so the download r.bin.fastget records could not resume from it"
            }
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains("fastget: mirror \(standIn.url("/r.bin")) cannot stand in for \(primary.server.url()): \(reason)\n"),
            "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("r.bin.fastget")).map { Array($0) } == journal, "journal untouched")
        #expect(SHA256.hex(ofFile: directory.file("r.bin.part")) == part, ".part untouched")
        #expect(!FileManager.default.fileExists(atPath: directory.file("r.bin")))
        #expect(standIn.requests.allSatisfy { $0.method == "HEAD" || $0.header("Range") == "bytes=0-0" }, "only probed")
    }

    /// A stand-in with the version the journal records resumes it: only the missing ranges,
    /// under its own If-Range, and the journal's URL keeps it.
    @Test func aStandInWithTheRecordedVersionResumesTheJournal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (primary, journal) = try interruptedRun(in: directory)
        let recorded = try Journal.decode(journal)
        var file = TestFile(data)
        file.etag = "\"u1\""
        let standIn = try TestServer(file: file)
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", "-o", "r.bin", primary.server.url(), standIn.url("/r.bin")], in: directory.path,
            timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(!result.stderr.contains("starting over"), "\(result.stderr)")
        let ranged = standIn.requests.filter { $0.method == "GET" }
        #expect(!ranged.isEmpty && ranged.allSatisfy { $0.header("If-Range") == "\"u1\"" })
        // No byte the journal claims is asked again. (Not the sum of the ranges: a steal asks
        // again for the tail of a range in flight, so the ranges may overlap each other.)
        let asked = ranged.compactMap { $0.header("Range") }.map { value -> ClosedRange<Int64> in
            let ends = value.dropFirst("bytes=".count).split(separator: "-").compactMap { Int64($0) }
            return ends.count == 2 ? ends[0]...ends[1] : 0...Int64(data.count - 1)
        }
        let done = recorded.segments.filter { $0.written > $0.start }.map { $0.start...($0.written - 1) }
        #expect(recorded.bytesWritten > 0 && asked.allSatisfy { range in !done.contains { $0.overlaps(range) } }, "\(asked) against \(done)")
    }

    /// A mirror whose bytes failed the URL's digest is not the URL's stand-in on the rerun: the
    /// journal keeps the digest and the failure for the URL.
    @Test func aMirrorWhoseBytesFailedTheDigestDoesNotStandIn() throws {
        var wrong = data
        for index in stride(from: 0, to: wrong.count, by: 65_536) { wrong[index] ^= 0xFF }
        let mirror = try MirrorResumeTests.Mirror(wrong, etag: "\"m\"")
        let hex = Array(SHA256.hex(data).utf8)
        let digest = Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
        let primary = try MirrorResumeTests.Mirror(data, etag: "\"u1\"") { _ in ["Repr-Digest: sha-256=:\(digest.base64EncodedString()):"] }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "-o", "r.bin", primary.server.url(), mirror.server.url()]
        let first = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        try #require(first.status == 76, "\(first.stderr)")
        #expect(first.stderr.contains("the same command downloads it again without \(mirror.server.url())"), "\(first.stderr)")
        let journal = try #require(FileManager.default.contents(atPath: directory.file("r.bin.fastget"))).map { $0 }
        primary.server.stop()
        mirror.server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 69, "\(rerun.stderr)")
        #expect(
            rerun.stderr.contains(
                "fastget: mirror \(mirror.server.url()) cannot stand in for \(primary.server.url()): the file it served part of failed its digest check in an earlier run\n"
            ), "\(rerun.stderr)")
        #expect(mirror.server.requests.isEmpty, "not even probed")
        #expect(FileManager.default.contents(atPath: directory.file("r.bin.fastget")).map { Array($0) } == journal)
        #expect(!FileManager.default.fileExists(atPath: directory.file("r.bin")))
    }
}
