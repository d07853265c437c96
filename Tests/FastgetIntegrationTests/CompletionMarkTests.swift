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
    /// beside every file on ext4, a fifth of a list of small files' time until it was on disk.
    /// One mark of at most 64 bytes under a 7-byte name fits in a 256-byte inode.
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
        #expect(mark.hasPrefix("d 65536 \(mtime) ") && mark.hasSuffix(" \"fastget-test-1\""), "\(mark)")
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

    /// An earlier release's `.part` without a journal, known by its `user.fastget.part`
    /// ("INODE URL"), is still fastget's: run again, and its old mark does not stay behind.
    @Test func anEarlierReleasesPartIsStillFastgets() throws {
        let data = testBytes(count: 4 << 20, seed: 2902)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let part = directory.file("f.bin.part")
        try Data(data[0..<1_000_000]).write(to: URL(fileURLWithPath: part))
        let inode = try #require(FileSystem.entryStatus(part)).inode
        #expect(try FileDescriptor.openRegular(part).setAttribute("user.fastget.part", "\(inode) \(server.url())"))
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(attributeNames(directory.file("f.bin")) == ["user.fastget"])
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
