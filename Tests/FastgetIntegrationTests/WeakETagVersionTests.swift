@testable import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Express (`send`) rewrites a file of the same size within a second as a new weak ETag and
/// the same Last-Modified. `If-Range` cannot carry a weak ETag, so it carries the date, which
/// still matches: only comparing the ETag itself keeps the two versions apart, between runs and
/// on every 206.
@Suite struct WeakETagVersionTests {
    let versionA = testBytes(count: 4 << 20, seed: 2501)
    let versionB = testBytes(count: 4 << 20, seed: 2502)

    /// The file the server has now, swappable while it runs; `rangeETag` replaces the ETag
    /// of answers to range requests other than the probe's (nil there: left out, as some
    /// CDNs do).
    final class Versions: Sendable {
        let current: Locked<TestFile>
        let rangeETag: Locked<String??>

        init(_ bytes: [UInt8], etag: String = "W/\"a\"") {
            var file = TestFile(bytes)
            file.etag = etag
            current = Locked(file)
            rangeETag = Locked(.none)
        }

        func swap(_ bytes: [UInt8], etag: String?) {
            current.withLock {
                $0.content = .memory(bytes)
                $0.etag = etag
            }
        }

        func answer(_ request: RecordedRequest) -> TestFile {
            var file = current.withLock { $0 }
            if let range = request.header("Range"), range != "bytes=0-", let etag = rangeETag.withLock({ $0 }) { file.etag = etag }
            return file
        }
    }

    func server(_ versions: Versions) throws -> TestServer {
        try TestServer(TestServer.Configuration(rate: { _ in 2 * 1_048_576 })) { request in .file(versions.answer(request)) }
    }

    @Test func aWeakETagChangedBetweenRunsIsAnotherVersion() throws {
        let versions = Versions(versionA)
        let server = try server(versions)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "--checkpoint-interval", "0.1", "-o", "v.bin", server.url()]
        let run = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        // Bounded: the whole file takes about half a second at this rate.
        run.wait(upTo: 10) {
            let bytes = FileManager.default.contents(atPath: directory.file("v.bin.fastget"))
            return (bytes.flatMap { try? Journal.decode(Array($0)) }?.bytesWritten ?? 0) > 0
        }
        run.signal(SIGKILL)
        #expect(run.waitForExit(20))
        let left = try #require(FileManager.default.contents(atPath: directory.file("v.bin.fastget")), "no journal left")
        let journal = try Journal.decode(Array(left))
        #expect(journal.validator == Validator(etag: "W/\"a\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"))
        #expect(journal.bytesWritten > 0 && journal.bytesWritten < Int64(versionA.count))

        versions.swap(versionB, etag: "W/\"b\"") // same size, same Last-Modified
        server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        expectStartedOverAsB(
            rerun,
            "the file changed on the server (ETag W/\"a\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT → ETag W/\"b\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT)",
            server, directory)
    }

    /// The rerun `result` said `notice`, started over, and saved version B whole.
    func expectStartedOverAsB(_ result: ProcessResult, _ notice: String, _ server: TestServer, _ directory: TemporaryDirectory) {
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(versionB))
        #expect(result.stderr.contains("not resuming from v.bin.fastget: \(notice); starting over"), "\(result.stderr)")
        // Nothing of the journal's ranges was kept: the first of them was asked for again.
        let ranges = server.requests.filter { $0.method == "GET" }.compactMap { $0.header("Range") }
        #expect(ranges.contains { $0.hasPrefix("bytes=0-") }, "\(ranges)")
    }

    /// `server`'s file downloaded into `directory` as v.bin over four connections, through
    /// the library: its report and the notices.
    func download(_ server: TestServer, into directory: TemporaryDirectory) throws -> (DownloadReport, notices: [String]) {
        var options = DownloadOptions()
        options.output = directory.file("v.bin")
        options.segments = 4
        options.minimumSegmentSize = 64 * 1024
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options).run(notice: { text in notices.withLock { $0.append(text) } })
        return (report, notices.withLock { $0 })
    }

    @Test func a206WithAnotherWeakETagMidRunIsNeverWritten() throws {
        let versions = Versions(versionA)
        // The probe sees version A; every range request after it meets version B, whose
        // Last-Modified still satisfies If-Range.
        let server = try TestServer { request in
            let answer = versions.answer(request)
            if answer.etag == "W/\"a\"" { versions.swap(versionB, etag: "W/\"b\"") }
            return .file(answer)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (report, notices) = try download(server, into: directory)
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(versionB))
        #expect(report.resumedBytes == 0)
        #expect(
            notices.contains { $0 == "the file changed on the server (ETag W/\"b\", expected W/\"a\"); starting over" },
            "\(notices)")
        // Ranges went out guarded by the date: a weak ETag cannot be sent in If-Range.
        let guarded = server.requests.filter { $0.header("If-Range") != nil }
        #expect(!guarded.isEmpty && guarded.allSatisfy { $0.header("If-Range") == "Sat, 21 Nov 2026 10:00:00 GMT" })
    }

    @Test func a206WithoutAnETagIsNoDifference() throws {
        // nginx sends the ETag on both; some CDNs leave it out of 206 answers.
        let versions = Versions(versionA)
        versions.rangeETag.withLock { $0 = .some(nil) }
        let server = try server(versions)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["-n", "4", "-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(versionA))
        #expect(!result.stderr.contains("changed"), "\(result.stderr)")
    }

    @Test func aCompletedFileIsNotCalledCompleteOnceItsWeakETagChanged() throws {
        let versions = Versions(versionA)
        let server = try server(versions)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try runProcess(try fastgetExecutable(), ["-q", "-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(first.status == 0, "\(first.stderr)")
        let same = try runProcess(try fastgetExecutable(), ["-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(same.status == 0 && same.stderr.contains("v.bin is already complete"), "\(same.stderr)")
        versions.swap(versionB, etag: "W/\"b\"")
        let changed = try runProcess(try fastgetExecutable(), ["-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(changed.status == 73 && changed.stderr.contains("v.bin already exists"), "\(changed.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(versionA), "left as it was")
    }

    /// A journal as the release before version 3 wrote it (documented layout, version 2):
    /// the validator a kind byte, 2 for Last-Modified, the weak ETag dropped; no mirrors, no digest.
    func version2Journal(url: String, length: Int64, lastModified: String, segments: [Journal.Entry]) -> [UInt8] {
        var payload: [UInt8] = []
        payload.appendLittleEndian(length)
        payload.append(2)
        payload.appendString(lastModified)
        payload.appendString(url)
        payload.appendString(url)
        payload.appendLittleEndian(UInt32(segments.count))
        for segment in segments { [segment.start, segment.end, segment.written].forEach { payload.appendLittleEndian($0) } }
        payload.appendLittleEndian(UInt32(0))
        payload.appendString("")
        return Journal.framed(payload, version: 2)
    }

    /// The previous release, killed while the server had W/"a", left a version 2 journal of the
    /// date alone; the server now has W/"b" with the same date. That record cannot tell them
    /// apart: the download starts over, and nothing of A is kept.
    @Test func aJournalOfTheReleaseThatDroppedWeakETagsDoesNotResumeAgainstOne() throws {
        let versions = Versions(versionB, etag: "W/\"b\"")
        let server = try server(versions)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let half = Int64(versionA.count / 2)
        let date = "Sat, 21 Nov 2026 10:00:00 GMT"
        try Data(versionA.prefix(Int(half))).write(to: URL(fileURLWithPath: directory.file("v.bin.part")))
        let old = version2Journal(
            url: server.url(), length: Int64(versionA.count), lastModified: date,
            segments: [.init(start: 0, end: half, written: half), .init(start: half, end: Int64(versionA.count), written: half)])
        try Data(old).write(to: URL(fileURLWithPath: directory.file("v.bin.fastget")))
        let result = try runProcess(try fastgetExecutable(), ["-n", "4", "-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        expectStartedOverAsB(
            result,
            "it was written by an earlier release, which did not record the server's weak ETag (now W/\"b\"), so a changed file could not be told from this one",
            server, directory)
    }

    /// A file the previous release completed carries a three-line mark (length, the date
    /// If-Range carried, its time); once the server's weak ETag changed, it is not "complete".
    @Test func aThreeLineMarkDoesNotVouchAgainstAWeakETag() throws {
        let versions = Versions(versionB, etag: "W/\"b\"")
        let server = try server(versions)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("v.bin")
        try Data(versionA).write(to: URL(fileURLWithPath: path))
        let mtime = try #require(FileSystem.modificationTime(path))
        let file = try FileDescriptor.openRegular(path, readOnly: true)
        #expect(file.setAttribute("user.xdg.origin.url", server.url()), "this file system keeps user attributes")
        file.setAttribute("user.fastget.complete", "\(versionA.count)\nLast-Modified Sat, 21 Nov 2026 10:00:00 GMT\n\(mtime)")
        try file.close()
        let result = try runProcess(try fastgetExecutable(), ["-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 73 && result.stderr.contains("v.bin already exists"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: path) == SHA256.hex(versionA), "left as it was")
        // Against a server without a weak ETag, the same mark still says complete.
        versions.swap(versionB, etag: nil)
        let plain = try runProcess(try fastgetExecutable(), ["-o", "v.bin", server.url()], in: directory.path, timeout: 60)
        #expect(plain.status == 0 && plain.stderr.contains("v.bin is already complete"), "\(plain.stderr)")
    }

    /// A strong ETag that matches decides, whatever Last-Modified says: one server's HEAD and
    /// its 206 answers spell the same date in two formats (RFC 850 in one of them).
    @Test func aMatchingStrongETagOutweighsLastModifiedSpelledAnotherWay() throws {
        let data = versionA
        let server = try TestServer { request in
            var file = TestFile(data)
            file.etag = "\"s\""
            if request.method != "HEAD" && request.header("Range") != "bytes=0-" { file.lastModified = "Saturday, 21-Nov-26 10:00:00 GMT" }
            return .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notices = try download(server, into: directory).notices
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(data))
        #expect(!notices.contains { $0.contains("changed") }, "\(notices)")
        let guarded = server.requests.filter { $0.header("If-Range") != nil }
        #expect(!guarded.isEmpty && guarded.allSatisfy { $0.header("If-Range") == "\"s\"" })
    }
}
