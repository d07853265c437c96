import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// One file from several servers: ranges from every mirror that has the same length, each
/// with its own If-Range; a mirror that fails or lies is dropped and the others take its ranges.
@Suite struct MirrorTests {
    let data = testBytes(count: 8 << 20, seed: 71)

    /// Servers here send 4 MiB/s per connection: 8 MiB over four connections takes half a
    /// second, so that every mirror's probe (answered in milliseconds) comes long before the
    /// first server alone could have finished, and the mirrors surely serve ranges.
    static let paced = TestServer.Configuration(rate: { _ in 4 * 1_048_576 })

    /// A server of `data` whose file has the validator `etag` (mirrors' ETags differ).
    func server(etag: String, _ change: (inout TestFile) -> Void = { _ in }) throws -> TestServer {
        var file = TestFile(data)
        file.etag = etag
        change(&file)
        return try TestServer(file: file, MirrorTests.paced)
    }

    func download(_ url: String, mirrors: [String], segments: Int = 4, _ change: (inout DownloadOptions) -> Void = { _ in })
        throws -> (DownloadReport, TemporaryDirectory)
    {
        let directory = try TemporaryDirectory()
        var options = DownloadOptions()
        options.segments = segments
        options.minimumSegmentSize = 256 * 1024
        options.mirrors = mirrors
        options.output = directory.file("m.bin")
        change(&options)
        return (try Download(url: url, options: options).run(), directory)
    }

    /// The `Repr-Digest` field of `data`.
    var reprDigest: String {
        let hex = Array(SHA256.hex(data).utf8)
        let raw = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return "Repr-Digest: sha-256=:\(Data(raw).base64EncodedString()):"
    }

    /// GETs with a Range other than the probe's bytes=0-, as the server saw them.
    func rangeRequests(_ server: TestServer) -> [RecordedRequest] {
        server.requests.filter { $0.method == "GET" && $0.header("Range") != nil && $0.header("Range") != "bytes=0-" }
    }

    @Test func rangesComeFromEveryMirrorEachWithItsOwnValidator() throws {
        let primary = try server(etag: "\"a\"")
        let mirror = try server(etag: "\"b\"")
        let (report, directory) = try download(primary.url(), mirrors: [mirror.url()])
        defer { directory.remove() }
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(!rangeRequests(mirror).isEmpty, "the mirror served ranges")
        #expect(report.sources.map(\.url) == [primary.url(), mirror.url()])
        #expect(report.sources.reduce(0) { $0 + $1.bytes } >= Int64(data.count), "every byte came from one of them")
        #expect(report.sources.allSatisfy { $0.bytes > 0 && $0.dropped == nil })
        #expect(rangeRequests(mirror).allSatisfy { $0.header("If-Range") == "\"b\"" })
        #expect(rangeRequests(primary).allSatisfy { $0.header("If-Range") == "\"a\"" })
    }

    @Test func aMirrorWithAnotherLengthIsNotUsed() throws {
        let primary = try server(etag: "\"a\"")
        var shorter = TestFile(Array(data.dropLast()))
        shorter.etag = "\"b\""
        let mirror = try TestServer(file: shorter)
        let (report, directory) = try download(primary.url(), mirrors: [mirror.url()])
        defer { directory.remove() }
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(mirror.requests.allSatisfy { $0.method == "HEAD" }, "only its probe")
        #expect(report.bytes == Int64(data.count))
    }

    @Test func aMirrorWhoseContentRangeLiesIsDroppedAndNothingOfItIsWritten() throws {
        let primary = try server(etag: "\"a\"")
        let liar = try server(etag: "\"b\"") { $0.contentRangeShift = 1 }
        let (report, directory) = try download(primary.url(), mirrors: [liar.url()])
        defer { directory.remove() }
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(report.sources.last?.bytes == 0)
        #expect(report.sources.last?.dropped?.contains("Content-Range") == true, "\(report.sources)")
        // Dropped on its first answer: at most the two workers that went to it at once asked it.
        #expect(rangeRequests(liar).count <= 2, "\(rangeRequests(liar).count) requests")
    }

    @Test func aMirrorThatKeepsFailingIsDroppedAndTheOthersFinish() throws {
        let primary = try server(etag: "\"a\"")
        // Every ranged answer of the mirror breaks off after 64 KiB.
        let failing = try server(etag: "\"b\"") { $0.drop = DropPlan(afterBytes: 65_536, times: 1000) }
        let (report, directory) = try download(primary.url(), mirrors: [failing.url()]) { $0.retries = 1 }
        defer { directory.remove() }
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(report.bytes == Int64(data.count))
        #expect(rangeRequests(failing).count <= 2 * 4, "retried, then dropped: \(rangeRequests(failing).count) requests")
    }

    @Test func whenEveryServerFailsTheDownloadFails() throws {
        let primary = try server(etag: "\"a\"") { $0.drop = DropPlan(afterBytes: 65_536, times: 1000) }
        let mirror = try server(etag: "\"b\"") { $0.drop = DropPlan(afterBytes: 65_536, times: 1000) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 256 * 1024
        options.mirrors = [mirror.url()]
        options.retries = 1
        options.output = directory.file("m.bin")
        #expect(throws: FastgetError.self) { try Download(url: primary.url(), options: options).run() }
        #expect(!FileManager.default.fileExists(atPath: directory.file("m.bin")))
    }

    @Test func mirrorsTheServerAnnouncesAreUsedOnlyWithADigestAndUnlessTurnedOff() throws {
        let mirror = try server(etag: "\"b\"")
        let link = "Link: <\(mirror.url())>; rel=duplicate; pri=1"
        // Without a digest to check their bytes, announced mirrors are not used (RFC 6249 §6).
        let bare = try server(etag: "\"a\"") { $0.extraFields = [link] }
        let (_, zero) = try download(bare.url(), mirrors: [])
        defer { zero.remove() }
        #expect(mirror.requests.isEmpty)
        let primary = try server(etag: "\"a\"") { $0.extraFields = [link, reprDigest] }
        let (first, one) = try download(primary.url(), mirrors: [])
        defer { one.remove() }
        #expect(SHA256.hex(ofFile: one.file("m.bin")) == SHA256.hex(data))
        #expect(first.resource.announcedMirrors.map(\.url.description) == [mirror.url()])
        #expect(!rangeRequests(mirror).isEmpty)
        mirror.clearRecords()
        let (_, two) = try download(primary.url(), mirrors: []) { $0.mirrorsFromHeaders = false }
        defer { two.remove() }
        #expect(mirror.requests.isEmpty)
    }

    @Test func theCommandLineTakesMirrorsAfterTheURL() throws {
        let primary = try server(etag: "\"a\"")
        let mirror = try server(etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-q", "-n", "4", "-o", "c.bin", primary.url(), mirror.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("c.bin")) == SHA256.hex(data))
        #expect(!rangeRequests(mirror).isEmpty)
        // In a list, blanks separate the mirrors of one file.
        try "\(primary.url("/l.bin")) \(mirror.url("/l.bin"))\n".write(toFile: directory.file("list"), atomically: true, encoding: .utf8)
        mirror.clearRecords()
        let list = try runProcess(try fastgetExecutable(), ["-q", "-n", "4", "-i", "list"], in: directory.path, timeout: 60)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("l.bin")) == SHA256.hex(data))
        #expect(!rangeRequests(mirror).isEmpty)
    }

    @Test func unreachableMirrorsAreLeftOutAndTheStreamUsesTheOthers() throws {
        let primary = try server(etag: "\"a\"")
        let mirror = try server(etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Port 9 (discard) refuses on loopback; the mirror that answers serves the stream too.
        let result = try runProcess(
            "/bin/sh", ["-c", "\"$0\" -n 4 -o - \"$1\" http://127.0.0.1:9/f \"$2\" > s.bin", try fastgetExecutable(), primary.url(), mirror.url()],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        #expect(result.stderr.contains("mirror http://127.0.0.1:9/f not used: "), "\(result.stderr)")
        #expect(!rangeRequests(mirror).isEmpty)
    }

    @Test func aDigestMismatchSaysWhichServerServedWhichRanges() throws {
        var bad = data
        for index in stride(from: 0, to: bad.count, by: 64 * 1024) { bad[index] ^= 0xFF } // wrong in every range it serves
        let primary = try server(etag: "\"a\"") { $0.extraFields = [reprDigest] }
        var lying = TestFile(bad)
        lying.etag = "\"b\""
        let mirror = try TestServer(file: lying, MirrorTests.paced)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", "-o", "d.bin", primary.url(), mirror.url()], in: directory.path, timeout: 60)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("d.bin.part")))
        // Each server's line names the ranges it served; together they cover the file (a
        // hedge's race or a retry may have written some bytes twice).
        var covered: [(Int64, Int64)] = []
        for url in [primary.url(), mirror.url()] {
            let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("\(url) served bytes ") }, "\(result.stderr)")
            let list = line.split(separator: " served bytes ")[1].split(separator: " in this run")[0]
            for item in list.split(separator: ", ") {
                let bounds = item.split(separator: "-").map { Int64($0)! }
                covered.append((bounds[0], bounds[1] + 1))
            }
        }
        covered.sort { $0.0 < $1.0 }
        // (Sorted by start, the last range need not reach furthest: one server may have served
        // the end within a longer range.)
        #expect(covered.first?.0 == 0 && covered.map(\.1).max() == Int64(data.count), "\(covered)")
        var reach: Int64 = 0
        for range in covered where range.0 <= reach { reach = max(reach, range.1) }
        #expect(reach == Int64(data.count), "\(covered)")
    }

    /// `signed`: the mirror is announced with another query on every answer, as a CDN signs
    /// its links; it is still the mirror whose bytes failed.
    @Test(arguments: [false, true])
    func anAnnouncedMirrorWhoseBytesFailedTheDigestIsNamedAndLeftOutOfTheRerun(signed: Bool) throws {
        var bad = data
        for index in stride(from: 0, to: bad.count, by: 64 * 1024) { bad[index] ^= 0xFF } // wrong in every range it serves
        var lying = TestFile(bad)
        lying.etag = "\"b\""
        let mirror = try TestServer(file: lying, MirrorTests.paced)
        var original = TestFile(data)
        original.etag = "\"a\""
        let file = original
        let signatures = Locked(0)
        let primary = try TestServer(MirrorTests.paced) { [reprDigest] _ in
            var answer = file
            let query = signed ? "?sig=\(signatures.withLock { $0 += 1; return $0 })" : ""
            answer.extraFields = [reprDigest, "Link: <\(mirror.url())\(query)>; rel=duplicate"]
            return .file(answer)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "-o", "d.bin", primary.url()]
        let first = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(first.status == 76, "\(first.stderr)")
        #expect(first.stderr.contains("\(mirror.url())\(signed ? "?sig=1" : "") served bytes "), "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "which served part of it; --no-mirrors-from-headers leaves out the mirrors servers announce"
            ), "\(first.stderr)")
        mirror.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
        #expect(mirror.requests.isEmpty, "the rerun did not contact it: \(mirror.requests.map(\.method))")
        #expect(rerun.stderr.contains("not used: the file it served part of failed its digest check in an earlier run"), "\(rerun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("d.bin.fastget")))
    }

    /// The origin serves wrong bytes under its digest and a right mirror is announced: the
    /// first run cannot tell which is wrong and leaves the mirror out; the rerun, whose every
    /// byte came from the origin, says so instead of advising a rerun that can only fail.
    @Test func aRerunWhoseEveryByteCameFromTheServerBlamesIt() throws {
        var bad = data
        for index in stride(from: 0, to: bad.count, by: 64 * 1024) { bad[index] ^= 0xFF }
        let mirror = try server(etag: "\"b\"")
        let primary = try server(etag: "\"a\"") {
            $0.content = .memory(bad)
            $0.extraFields = [reprDigest, "Link: <\(mirror.url())>; rel=duplicate"]
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "-o", "d.bin", primary.url()]
        let first = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(first.status == 76 && first.stderr.contains("without \(mirror.url()), which served part of it"), "\(first.stderr)")
        mirror.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 76, "\(rerun.stderr)")
        #expect(
            rerun.stderr.hasSuffix(
                "hint: every byte came from 127.0.0.1:\(primary.port) (mirrors whose bytes failed before were left out): its file or the digest is wrong, and the same command would fail the same way\n"
            ), "\(rerun.stderr)")
        #expect(!rerun.stderr.contains("run the same command"), "\(rerun.stderr)")
        #expect(mirror.requests.isEmpty)
        #expect(SHA256.hex(ofFile: directory.file("d.bin.part")) == SHA256.hex(bad))
    }

    /// The most GETs a server was answering at once.
    func mostAtOnce(_ server: TestServer) -> Int {
        // Each response from its head to its last write: a response the client cut is noticed
        // by the server only at its next write, which under load may come after the client's
        // next connection began.
        var edges = server.responses.filter { $0.method == "GET" }.flatMap { [($0.started, 1), ($0.lastWrite, -1)] }
        edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var active = 0
        var most = 0
        for edge in edges {
            active += edge.1
            most = max(most, active)
        }
        return most
    }

    @Test func anAutomaticCountGrowsOnEachMirrorWithinItsHostCap() throws {
        let rate = TestServer.Configuration(rate: { _ in 1_048_576 })
        var first = TestFile(data), second = TestFile(data)
        (first.etag, second.etag) = ("\"a\"", "\"b\"")
        let primary = try TestServer(file: first, rate)
        // Another host: mirrors on 127.0.0.1 and localhost have their own caps.
        let mirror = try TestServer(file: second, rate)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = nil
        options.hedgesTails = false
        options.mirrors = [mirror.url().replacingOccurrences(of: "127.0.0.1", with: "localhost")]
        options.output = directory.file("a.bin")
        let session = try Session(maximumConnectionsPerHost: 2)
        let report = try Download(url: primary.url(), options: options, session: session).run()
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        #expect(report.workers > 2, "it grew past one host's cap: \(report.workers)")
        #expect(mostAtOnce(primary) <= 2 && mostAtOnce(mirror) <= 2, "\(mostAtOnce(primary)), \(mostAtOnce(mirror))")
    }

    /// `fastget a.img b.img` typed as wget takes it (two files of one size): without a digest,
    /// the second is not taken for a mirror of the first.
    @Test func aMirrorNamingAnotherFileIsUsedOnlyWithADigest() throws {
        let primary = try server(etag: "\"a\"")
        let other = try server(etag: "\"b\"")
        let (_, directory) = try download(primary.url("/a.img"), mirrors: [other.url("/b.img")])
        defer { directory.remove() }
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(other.requests.isEmpty, "not even probed")
        let checksum = try Checksum("sha-256=\(SHA256.hex(data))")
        let (report, checked) = try download(primary.url("/a.img"), mirrors: [other.url("/b.img")]) { $0.checksum = checksum }
        defer { checked.remove() }
        #expect(!rangeRequests(other).isEmpty, "a digest proves it")
        #expect(report.sources.count == 2)
    }

    @Test func mirrorsOfAFileWithoutRangesGetANotice() throws {
        let primary = try server(etag: "\"a\"") {
            $0.honorsRange = false; $0.advertisesRanges = false
        }
        let mirror = try server(etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "4", "-o", "r.bin", primary.url(), mirror.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(result.stderr.contains("mirrors not used: \(primary.url()) does not serve byte ranges"), "\(result.stderr)")
    }
}
