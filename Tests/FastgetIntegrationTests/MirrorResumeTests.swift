import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Resuming with mirrors after a kill: the journal records every mirror with its validator, and
/// the rerun uses a mirror only while it still has the file it served before.
@Suite struct MirrorResumeTests {
    let data = testBytes(count: 8 << 20, seed: 72)

    /// A server of `data` at 2 MiB/s per connection whose ETag can change between runs.
    final class Mirror: Sendable {
        let etag: Locked<String>
        let server: TestServer

        /// `fields(method)`: header fields its answers to that method add.
        init(_ data: [UInt8], etag: String, fields: @escaping @Sendable (String) -> [String] = { _ in [] }) throws {
            let current = Locked(etag)
            self.etag = current
            server = try TestServer(TestServer.Configuration(rate: { _ in 2 * 1_048_576 })) { request in
                var file = TestFile(data)
                file.etag = current.withLock { $0 }
                if file.etag == "" { (file.etag, file.lastModified) = (nil, nil) } // no validator at all
                file.extraFields = fields(request.method)
                return .file(file)
            }
        }

        var rangeRequests: [RecordedRequest] {
            server.requests.filter { $0.method == "GET" && $0.header("Range") != nil && $0.header("Range") != "bytes=0-" }
        }
    }

    /// Runs `arguments` in `directory` until its journal claims bytes from both servers, kills
    /// it, and returns the journal it left.
    func runAndKill(_ arguments: [String], in directory: TemporaryDirectory, _ mirror: Mirror) throws -> Journal {
        let run = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        // Bounded: the whole file takes about 1 s at these rates.
        run.wait(upTo: 4) {
            let bytes = FileManager.default.contents(atPath: directory.file("r.bin.fastget"))
            let journal = bytes.flatMap { try? Journal.decode(Array($0)) }
            return (journal?.bytesWritten ?? 0) > 0 && !mirror.rangeRequests.isEmpty
        }
        run.signal(SIGKILL)
        #expect(run.waitForExit(20))
        let left = try #require(FileManager.default.contents(atPath: directory.file("r.bin.fastget")), "no journal left")
        return try Journal.decode(Array(left))
    }

    @Test func theJournalRecordsTheMirrorAndTheRerunFinishesFromBoth() throws {
        let primary = try Mirror(data, etag: "\"a\"")
        let mirror = try Mirror(data, etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", primary.server.url(), mirror.server.url()]
        let journal = try runAndKill(arguments, in: directory, mirror)
        #expect(
            journal.mirrors == [
                Journal.Mirror(url: mirror.server.url(), validator: Validator(etag: "\"b\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"))
            ])
        mirror.server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(!mirror.rangeRequests.isEmpty, "the rerun used the mirror")
        #expect(mirror.rangeRequests.allSatisfy { $0.header("If-Range") == "\"b\"" })
        #expect(!FileManager.default.fileExists(atPath: directory.file("r.bin.fastget")))
    }

    @Test func aMirrorWhoseFileChangedSinceTheKillIsNotUsedOnResume() throws {
        let primary = try Mirror(data, etag: "\"a\"")
        let mirror = try Mirror(data, etag: "\"b\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", primary.server.url(), mirror.server.url()]
        _ = try runAndKill(arguments, in: directory, mirror)
        mirror.etag.withLock { $0 = "\"c\"" }
        mirror.server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        let notice =
            "mirror \(mirror.server.url()) not used: its file changed since the last run (ETag \"b\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT → ETag \"c\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT)"
        #expect(rerun.stderr.contains(notice), "\(rerun.stderr)")
        #expect(mirror.rangeRequests.isEmpty, "only its probe")
    }

    /// A server that announces its digest (and a mirror) on GET but not on HEAD: the resume,
    /// which probes with HEAD, still checks the file against the digest the journal kept, so
    /// bytes an announced mirror served wrong cannot pass.
    @Test func theDigestThatVouchedForAMirrorIsKeptForTheResume() throws {
        var wrong = data
        for index in stride(from: 0, to: wrong.count, by: 65_536) { wrong[index] ^= 0xFF }
        let mirror = try Mirror(wrong, etag: "\"m\"")
        let hex = Array(SHA256.hex(data).utf8)
        let digest = Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
        let announced = ["Repr-Digest: sha-256=:\(digest.base64EncodedString()):", "Link: <\(mirror.server.url())>; rel=duplicate"]
        let primary = try Mirror(data, etag: "\"a\"") { $0 == "GET" ? announced : [] }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", primary.server.url()]
        let journal = try runAndKill(arguments, in: directory, mirror)
        #expect(journal.digest?.hex == SHA256.hex(data) && journal.mirrors.map(\.url) == [mirror.server.url()])
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 76, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("(the digest the journal kept from the run that used mirrors)"), "\(rerun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("r.bin")), "never presented as done")
    }

    @Test func aMirrorWithoutAValidatorServesNoResumeWithoutADigest() throws {
        let primary = try Mirror(data, etag: "\"a\"")
        let mirror = try Mirror(data, etag: "")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", primary.server.url(), mirror.server.url()]
        let journal = try runAndKill(arguments, in: directory, mirror)
        #expect(journal.mirrors == [Journal.Mirror(url: mirror.server.url(), validator: nil)])
        mirror.server.clearRecords()
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(rerun.stderr.contains("mirror \(mirror.server.url()) not used: it gives no ETag or Last-Modified"), "\(rerun.stderr)")
        #expect(mirror.rangeRequests.isEmpty)
    }
}
