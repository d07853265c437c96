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

    @Test func aFileWithoutAMarkIsComparedByItsTimeAndLength() throws {
        let data = testBytes(count: 1 << 20, seed: 163)
        var file = TestFile(data)
        file.lastModified = "Sat, 21 Nov 2026 10:00:00 GMT"
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("t.bin")
        func place(_ bytes: Data) throws {
            try bytes.write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_795_255_200)], ofItemAtPath: path)
        }
        // As long as the server's and as old as its Last-Modified: kept, nothing fetched.
        try place(Data(data))
        let same = try runProcess(try fastgetExecutable(), ["-N", "-o", "t.bin", origin.server.url()], in: directory.path)
        #expect(same.status == 0 && same.stderr.contains("Last-Modified: Sat, 21 Nov 2026 10:00:00 GMT, not after the file's time"), "\(same.stderr)")
        #expect(origin.server.requests.map(\.method) == ["HEAD"])
        // A copy cut short at the same age is not the file: fetched again.
        try place(Data("an older copy".utf8))
        let short = try runProcess(try fastgetExecutable(), ["-N", "-o", "t.bin", origin.server.url()], in: directory.path)
        #expect(short.status == 0 && !short.stderr.contains("unchanged"), "\(short.stderr)")
        #expect(SHA256.hex(ofFile: path) == SHA256.hex(data))
    }

    @Test func aMarkedFileWrittenSinceIsFetchedAgain() throws {
        let data = testBytes(count: 1 << 20, seed: 164)
        var file = TestFile(data)
        (file.etag, file.lastModified) = ("\"v1\"", "Sat, 21 Nov 2026 10:00:00 GMT")
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-N", "-o", "w.bin", origin.server.url()]
        #expect(try runProcess(try fastgetExecutable(), arguments, in: directory.path).status == 0)
        // Cut short by another program: the server still has "v1", but this is not it.
        let handle = try #require(FileHandle(forWritingAtPath: directory.file("w.bin")))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        origin.server.clearRecords()
        let again = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(again.status == 0 && !again.stderr.contains("unchanged"), "\(again.stderr)")
        #expect(!origin.server.requests.contains { $0.header("If-None-Match") != nil }, "the ETag is not offered for a changed file")
        #expect(SHA256.hex(ofFile: directory.file("w.bin")) == SHA256.hex(data))
    }

    /// Express rewrites a same-size file within a second as a new weak ETag and the same
    /// Last-Modified: the mark's weak ETag goes in If-None-Match (compared weakly, RFC 9110
    /// §13.1.2), and the new version replaces the old one.
    @Test func aChangedWeakETagIsFetchedAgain() throws {
        let old = testBytes(count: 1 << 20, seed: 165), new = testBytes(count: 1 << 20, seed: 166)
        var file = TestFile(old)
        (file.etag, file.lastModified) = ("W/\"a\"", "Sat, 21 Nov 2026 10:00:00 GMT")
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-N", "-o", "k.bin", origin.server.url()]
        #expect(try runProcess(try fastgetExecutable(), arguments, in: directory.path).status == 0)
        origin.server.clearRecords()
        let same = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(same.status == 0 && same.stderr.contains("k.bin is unchanged on the server (If-None-Match: W/\"a\")"), "\(same.stderr)")
        #expect(origin.server.requests.map(\.method) == ["HEAD"])
        origin.current.withLock {
            $0.content = .memory(new)
            $0.etag = "W/\"b\""
        }
        origin.server.clearRecords()
        let changed = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(changed.status == 0 && !changed.stderr.contains("unchanged"), "\(changed.stderr)")
        #expect(origin.server.requests.first?.header("If-None-Match") == "W/\"a\"")
        #expect(SHA256.hex(ofFile: directory.file("k.bin")) == SHA256.hex(new))
    }

    @Test func aPlantedMarkWithALineBreakInItsETagIsNoMark() throws {
        let bytes = testBytes(count: 1 << 20, seed: 163)
        var file = TestFile(bytes)
        (file.etag, file.lastModified) = ("\"v1\"", "Sat, 21 Nov 2026 10:00:00 GMT")
        let origin = try Origin(file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-N", "-o", "n.bin", origin.server.url()]
        #expect(try runProcess(try fastgetExecutable(), arguments, in: directory.path).status == 0)
        // Rewrite the mark's ETag as someone with write access could (the time stays).
        let path = directory.file("n.bin"), name = "user.fastget"
        let mark = try #require(FileSystem.attribute(path, name))
        let planted = mark.replacingOccurrences(of: "\"v1\"", with: "\"v1\r\nX-Planted: 1\"")
        let descriptor = try FileDescriptor.openReadOnly(path)
        #expect(planted != mark && descriptor.setAttribute(name, planted))
        origin.server.clearRecords()
        let second = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!origin.server.requests.contains { $0.header("If-None-Match") != nil })
        #expect(SHA256.hex(ofFile: path) == SHA256.hex(bytes))
    }
}
