@testable import Fastget
import FastgetTestSupport
import Foundation
import CLinux
import Glibc
import Testing

/// A finished file's mark: one attribute, small enough to live in the inode, that a `.part`
/// carries from its creation and that becomes the completion mark in one write; the URL
/// attribute only with `--xattr`; and the marks of earlier releases, still read.
@Suite struct CompletionMarkTests {
    let small = testBytes(count: 64 << 10, seed: 2901)

    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
    }

    /// The names of the user attributes of the file at `path`.
    func attributeNames(_ path: String) -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = listxattr(path, &buffer, buffer.count)
        guard count > 0 else { return [] }
        return buffer[0..<count].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// Two attributes (the URL and a 115-byte completion text) took a 4 KiB block of their own
    /// beside every file on ext4: a 64 KiB file took 68 KiB. One mark of at most 64 bytes
    /// under a 7-byte name fits in a 256-byte inode.
    @Test func aFinishedFileCarriesOneMarkSmallEnoughForItsInode() throws {
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let path = directory.file("f.bin")
        #expect(SHA256.hex(ofFile: path) == SHA256.hex(small))
        #expect(attributeNames(path) == ["user.fastget"])
        let mark = try #require(FileSystem.attribute(path, "user.fastget"))
        let mtime = try #require(FileSystem.modificationTime(path))
        // The tag of the URL, length and time; no version field beside a strong ETag.
        let tag = SidecarFiles.tag("\(server.url())\n65536\n\(mtime)")
        #expect(mark == "d \(tag) - \"fastget-test-1\"")
        #expect(mark.utf8.count <= 64, "\(mark)")
        let again = try run(["-o", "f.bin", server.url()], in: directory)
        #expect(again.status == 0 && again.stderr == "fastget: f.bin is already complete\n", "\(again.stderr)")
    }

    /// curl's and wget's `--xattr`: the URL without its credentials, in `user.xdg.origin.url`.
    @Test func xattrRecordsTheURLWithoutCredentials() throws {
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = server.url().replacingOccurrences(of: "http://", with: "http://user:secret@")
        #expect(try run(["-q", "--xattr", "-o", "x.bin", url], in: directory).status == 0)
        #expect(FileSystem.attribute(directory.file("x.bin"), "user.xdg.origin.url") == server.url())
        #expect(try run(["-q", "-o", "y.bin", url], in: directory).status == 0)
        #expect(FileSystem.attribute(directory.file("y.bin"), "user.xdg.origin.url") == nil)
    }

    /// An earlier release's `.part` with its journal, known by its `user.fastget.part`
    /// ("INODE URL"), resumes; its old marks (and an old completion text) do not stay behind.
    @Test func anEarlierReleasesPartResumesAndLosesItsOldMarks() throws {
        let mirror = try MirrorResumeTests.Mirror(testBytes(count: 8 << 20, seed: 2902), etag: "\"e1\"")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "0.1", "-o", "r.bin", mirror.server.url()]
        let journal = try MirrorResumeTests().runAndKill(arguments, in: directory, mirror)
        let part = directory.file("r.bin.part")
        let inode = try #require(FileSystem.entryStatus(part)).inode
        let file = try FileDescriptor.openRegular(part)
        file.removeAttribute("user.fastget")
        #expect(file.setAttribute("user.fastget.part", "\(inode) \(mirror.server.url())"))
        #expect(file.setAttribute("user.fastget.complete", "planted"))
        try file.close()
        mirror.server.clearRecords()
        let result = try run(arguments, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(testBytes(count: 8 << 20, seed: 2902)))
        #expect(!mirror.server.requests.contains { $0.header("Range") == "bytes=0-" } && journal.bytesWritten > 0, "resumed")
        #expect(attributeNames(directory.file("r.bin")) == ["user.fastget"])
    }

    /// The attack a CRC-32 of the URL allowed: a server picks a URL of its own whose CRC-32 is
    /// another's (four characters of a query string), serves other bytes under that file's
    /// length and validators, and the other URL's next run called them its complete file.
    @Test func aURLWithAnotherURLsCRCDoesNotInheritItsCompletion() throws {
        let real = try TestServer(file: TestFile(small))
        let other = testBytes(count: small.count, seed: 2903)
        let evil = try TestServer(file: TestFile(other))
        let forged = try #require(CompletionMarkTests.urlWithTheCRC(of: real.url(), startingWith: evil.url("/f.bin?q=")))
        #expect(CRC32.checksum(forged.utf8) == CRC32.checksum(real.url().utf8) && forged != real.url())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(try run(["-q", "-o", "f.bin", forged], in: directory).status == 0)
        let result = try run(["-o", "f.bin", real.url()], in: directory)
        #expect(result.status == 73 && result.stderr.contains("f.bin already exists"), "\(result.stderr)")
        let timestamped = try run(["-N", "-o", "f.bin", real.url()], in: directory)
        #expect(timestamped.status == 0, "\(timestamped.stderr)")
        // -N falls back to wget's rule (length and date), as for any unmarked file.
        #expect(!real.requests.contains { $0.header("If-None-Match") != nil }, "the forged mark's ETag was not sent")
    }

    /// `prefix` and four URL-safe characters whose CRC-32 is `target`'s: the four bytes that
    /// force a CRC-32 are computed backwards through its table, for prefixes numbered in turn
    /// until they are all URL-safe (about one in 230).
    static func urlWithTheCRC(of target: String, startingWith prefix: String) -> String? {
        let table: [UInt32] = (0..<256).map { index in
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            return value
        }
        var byTopByte = [Int](repeating: 0, count: 256)
        for (index, entry) in table.enumerated() { byTopByte[Int(entry >> 24)] = index }
        var indexes = [Int](repeating: 0, count: 4)
        var wanted = ~CRC32.checksum(target.utf8)
        for position in (0..<4).reversed() {
            indexes[position] = byTopByte[Int(wanted >> 24)]
            wanted = (wanted ^ table[indexes[position]]) << 8
        }
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for number in 0..<100_000 {
            let start = prefix + "\(number)x"
            var register = ~CRC32.checksum(start.utf8)
            var bytes: [UInt8] = []
            for index in indexes {
                bytes.append(UInt8(truncatingIfNeeded: register ^ UInt32(index)))
                register = (register >> 8) ^ table[index]
            }
            if bytes.allSatisfy(safe.contains) { return start + String(decoding: bytes, as: UTF8.self) }
        }
        return nil
    }

    /// A `.part` in its completed state (a kill between its mark and its rename) is fastget's
    /// only while it is as it was completed and names this URL: one written since, or another
    /// URL's, is refused as another program's and left as it is.
    @Test(arguments: ["written since", "another URL"])
    func aCompletedPartIsFastgetsOnlyAsItWasCompleted(_ change: String) throws {
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = change == "another URL" ? server.url("/another.bin") : server.url()
        #expect(try run(["-q", "-o", "f.bin", url], in: directory).status == 0)
        let part = directory.file("f.bin.part")
        #expect(rename(directory.file("f.bin"), part) == 0)
        if change == "written since" {
            let file = try FileDescriptor.openRegular(part)
            try file.write(Array("changed".utf8), at: 0)
            try file.close()
        }
        let before = SHA256.hex(ofFile: part)
        let result = try run(["-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73 && result.stderr.contains("f.bin.part was not made by fastget"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: part) == before)
        // As it was completed, for this URL: fastget's, and the rerun fetches the file.
        if change == "another URL" {
            #expect(try run(["-q", "-o", "g.bin", server.url()], in: directory).status == 0)
            #expect(rename(directory.file("g.bin"), directory.file("g.bin.part")) == 0)
            #expect(try run(["-q", "-o", "g.bin", server.url()], in: directory).status == 0)
            #expect(SHA256.hex(ofFile: directory.file("g.bin")) == SHA256.hex(small))
        }
    }

    /// A file an earlier release completed (`user.xdg.origin.url` and the four-line
    /// `user.fastget.complete`) is still complete for the same URL and version, and for no other.
    @Test func anEarlierReleasesCompletionMarkStillCounts() throws {
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("f.bin")
        try Data(small).write(to: URL(fileURLWithPath: path))
        let mtime = try #require(FileSystem.modificationTime(path))
        let file = try FileDescriptor.openRegular(path, readOnly: true)
        #expect(file.setAttribute("user.xdg.origin.url", server.url()))
        let validators = "ETag \"fastget-test-1\", Last-Modified Sat, 21 Nov 2026 10:00:00 GMT"
        #expect(file.setAttribute("user.fastget.complete", "65536\nETag \"fastget-test-1\"\n\(mtime)\n\(validators)"))
        try file.close()
        let result = try run(["-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0 && result.stderr == "fastget: f.bin is already complete\n", "\(result.stderr)")
        let other = try run(["-o", "f.bin", server.url("/other.bin")], in: directory)
        #expect(other.status == 73 && other.stderr.contains("f.bin already exists"), "\(other.stderr)")
        #expect(SHA256.hex(ofFile: path) == SHA256.hex(small))
    }
}
