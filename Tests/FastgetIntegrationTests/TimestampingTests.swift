import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-N`: a nightly `fastget -N URL` fetches the file only when the server says it changed
/// (If-None-Match with the ETag remembered from the last download, else If-Modified-Since),
/// and a changed file replaces the old one in one rename; the file gets Last-Modified as its time.
@Suite struct TimestampingTests {
    /// A server whose file (bytes, ETag, Last-Modified) can change, and that answers
    /// conditional requests as RFC 9110 §13 says.
    final class Origin: Sendable {
        let current: Locked<TestFile>
        let server: TestServer

        init(_ file: TestFile) throws {
            let current = Locked(file)
            self.current = current
            server = try TestServer { request in
                let file = current.withLock { $0 }
                if let tag = request.header("If-None-Match") { return tag == file.etag ? .status(304) : .file(file) }
                if let since = request.header("If-Modified-Since"), since == file.lastModified { return .status(304) }
                return .file(file)
            }
        }
    }

    @Test func anUnchangedFileIsNotFetchedAndAChangedOneReplacesIt() throws {
        let old = testBytes(count: 2 << 20, seed: 161), new = testBytes(count: 3 << 20, seed: 162)
        var file = TestFile(old)
        (file.etag, file.lastModified) = ("\"v1\"", "Sat, 21 Nov 2026 10:00:00 GMT")
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-N", "-o", "n.bin", origin.server.url()]
        let first = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("n.bin"))
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_795_255_200, "Last-Modified as its time")
        origin.server.clearRecords()
        let second = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(second.status == 0 && second.stderr.contains("n.bin is unchanged on the server (If-None-Match: \"v1\")"), "\(second.stderr)")
        #expect(origin.server.requests.map(\.method) == ["HEAD"], "one conditional request, nothing fetched")
        origin.current.withLock {
            $0 = TestFile(new); ($0.etag, $0.lastModified) = ("\"v2\"", "Sun, 22 Nov 2026 10:00:00 GMT")
        }
        let third = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("n.bin")) == SHA256.hex(new), "the changed file replaced the old one")
    }

    @Test func aFileWithoutAMarkIsComparedByItsTime() throws {
        var file = TestFile(testBytes(count: 1 << 20, seed: 163))
        file.lastModified = "Sat, 21 Nov 2026 10:00:00 GMT"
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("an older copy".utf8).write(to: URL(fileURLWithPath: directory.file("t.bin")))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_795_255_200)], ofItemAtPath: directory.file("t.bin"))
        let result = try runProcess(try fastgetExecutable(), ["-N", "-o", "t.bin", origin.server.url()], in: directory.path)
        #expect(result.status == 0 && result.stderr.contains("If-Modified-Since: Sat, 21 Nov 2026 10:00:00 GMT"), "\(result.stderr)")
    }
}
