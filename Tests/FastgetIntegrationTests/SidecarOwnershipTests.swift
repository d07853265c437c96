@testable import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Sidecar files are fastget's or untouched, continued: a `.part` swapped during a run, the
/// mark that must outlive a kill before the rename, another program's `.part` taken by `-c`,
/// a file at the journal's name that is no journal, hard links and other users' files, copied
/// marks, and names derived from the server that lead somewhere else.
@Suite struct SidecarOwnershipTests {
    let data = testBytes(count: 4 << 20, seed: 2511)
    let victimBytes = testBytes(count: 4 << 20, seed: 2512)

    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
    }

    func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func names(_ directory: TemporaryDirectory) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    /// GETs that carried bytes of the file.
    func bodyGETs(_ server: TestServer) -> [ServedResponse] {
        server.responses.filter { $0.method == "GET" && $0.bodyBytes > 0 }
    }

    // Finding 1: the rename checks that the `.part` is still this download's.

    #if FASTGET_FAULTS
    /// The `.part` is swapped for another file while the digest is read back (through the open
    /// descriptor, so the check passes): the other file is neither renamed nor reported saved.
    @Test func aPartSwappedDuringTheRunIsNeitherRenamedNorReported() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.segments = 2
        options.checksum = try Checksum("sha-256=" + SHA256.hex(data))
        let part = directory.file("f.bin.part")
        let swapped = Locked(false)
        let planted = victimBytes
        FaultInjection.beforeDigestReads(of: part) {
            guard
                !swapped.withLock({
                    let was = $0; $0 = true; return was
                })
            else { return }
            try? FileManager.default.moveItem(atPath: part, toPath: directory.file("moved-away"))
            try? Data(planted).write(to: URL(fileURLWithPath: part))
        }
        defer { FaultInjection.beforeDigestReads(of: part, nil) }
        let error = try #require(throws: FastgetError.self) { try Download(url: server.url(), options: options).run() }
        #expect(error.code == .cannotCreateOutput)
        #expect(error.message == "\(part) was replaced by another file while it was downloaded; leaving it alone")
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin")))
        #expect(SHA256.hex(ofFile: part) == SHA256.hex(victimBytes))
        #expect(SHA256.hex(ofFile: directory.file("moved-away")) == SHA256.hex(data))
    }
    #endif

    // Finding 2: the mark stays until the rename.

    /// A small file (no journal) whose final fsync fails stands for a kill between the mark's
    /// removal and the rename: the same command must then start over, not refuse the `.part`.
    @Test func aSmallDownloadStoppedBeforeItsRenameIsRunAgain() throws {
        let small = testBytes(count: 100_000, seed: 2513)
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "--checkpoint-interval", "60", "-o", "f.bin", server.url()]
        let stopped = try FaultRun("fail=fsync@1", arguments, in: directory.path)
        try stopped.requireInjector()
        #expect(stopped.status == 74, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("fsync f.bin.part: Input/output error"), "\(stopped.stderr)")
        #expect(try names(directory) == ["f.bin.part"])
        let again = try run(arguments, in: directory)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(small))
        #expect(try names(directory) == ["f.bin"])
    }

    /// One stream (no ranges, no journal): NAME appears meanwhile, the download is kept as
    /// `.part`, and following the hint (move NAME away, run the same command) works.
    @Test func theAppearedHintWorksForASingleStream() throws {
        var file = TestFile(data)
        file.honorsRange = false
        file.advertisesRanges = false
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 4_194_304 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-o", "f.bin", server.url()]
        let first = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        first.wait(upTo: 20) { FileManager.default.fileExists(atPath: directory.file("f.bin.part")) }
        try write(victimBytes, directory.file("f.bin"))
        #expect(first.waitForExit(30))
        let stderr = first.stderr
        #expect(first.status == 73, "\(stderr)")
        #expect(stderr.contains("f.bin appeared while downloading; the download is kept as f.bin.part"), "\(stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(victimBytes))
        try FileManager.default.moveItem(atPath: directory.file("f.bin"), toPath: directory.file("moved"))
        let again = try run(arguments, in: directory)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    // Finding 3 and 4: `-c` and another program's `.part`.

    /// A full-length `.part` of other bytes: kept by its length alone, said so, never marked
    /// complete (the next run does not call it complete).
    @Test func continueKeepsAWholeForeignPartByItsLengthAloneAndNeverMarksIt() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try write(victimBytes, directory.file("f.bin.part"))
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "f.bin.part has the server's length (4194304 bytes); kept by its length alone, with no digest to check it"),
            "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(victimBytes))
        #expect(bodyGETs(server).isEmpty)
        #expect(FileSystem.attribute(directory.file("f.bin"), SidecarFiles.partMark) == nil, "no mark at all")
        let again = try run(["-o", "f.bin", server.url()], in: directory)
        #expect(again.status == 73, "\(again.stderr)")
        #expect(again.stderr.contains("f.bin already exists"), "\(again.stderr)")
    }

    /// With a digest to check, a whole foreign `.part` of other bytes fails it and stays `.part`.
    @Test func continueChecksAWholeForeignPartAgainstADigest() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try write(victimBytes, directory.file("f.bin.part"))
        let result = try run(["-q", "-c", "--checksum", "sha-256=" + SHA256.hex(data), "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr.contains("sha-256 of f.bin.part is \(SHA256.hex(victimBytes))"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin")))
    }

    @Test func continueRefusesAForeignPartLargerThanTheFile() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let larger = victimBytes + testBytes(count: 1000, seed: 2514)
        try write(larger, directory.file("f.bin.part"))
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "f.bin.part is larger than the server's file (4195304 > 4194304 bytes), so it is not its start; leaving it alone\nhint: use --overwrite to replace it"
            ), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin.part")) == SHA256.hex(larger))
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }

    // Finding 5: a file at NAME.fastget that is no journal.

    @Test(arguments: [[], ["--overwrite"], ["-c"]])
    func aFileAtTheJournalsNameThatIsNoJournalIsRefusedAndKept(flags: [String]) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notes = Array("my notes about f.bin\n".utf8)
        try write(notes, directory.file("f.bin.fastget"))
        let result = try run(flags + ["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: f.bin.fastget is not a fastget journal; leaving it alone"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin.fastget")) == SHA256.hex(notes))
        #expect(bodyGETs(server).isEmpty)
    }

    /// Another program's `.part` with any file at NAME.fastget is still another program's.
    @Test func aNonJournalBesideAForeignPartDoesNotMakeItFastgets() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let prefix = Array(data[0..<1_500_000])
        try write(prefix, directory.file("f.bin.part"))
        try write(Array("x".utf8), directory.file("f.bin.fastget"))
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin.part")) == SHA256.hex(prefix))
        #expect(SHA256.hex(ofFile: directory.file("f.bin.fastget")) == SHA256.hex(Array("x".utf8)))
        #expect(bodyGETs(server).isEmpty)
    }

    // Finding 6: a `.part` or journal with other names, or another user's.

    enum Stranger: String, CaseIterable, Sendable { case hardLinkedPart, otherUsersPart, otherUsersJournal }

    @Test(arguments: Stranger.allCases)
    func aResumeNeverAdoptsAPartOrJournalThatIsNotThisUsersAlone(stranger: Stranger) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let length = Int64(data.count)
        let journal = Journal(
            url: server.url(), finalURL: server.url(), length: length, validator: .etag("\"fastget-test-1\""),
            segments: [Journal.Entry(start: 0, end: length, written: 1 << 20)])
        try Checkpointer.write(journal, to: directory.file("f.bin.fastget"), durably: false)
        let victim = directory.file("victim")
        try write(victimBytes, victim)
        let part = directory.file("f.bin.part")
        switch stranger {
        case .hardLinkedPart: #expect(link(victim, part) == 0)
        case .otherUsersPart:
            try write(victimBytes, part)
            #expect(chown(part, 65534, 65534) == 0)
        case .otherUsersJournal:
            try write(victimBytes, part)
            #expect(chown(directory.file("f.bin.fastget"), 65534, 65534) == 0)
        }
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(stranger): \(result.stderr)")
        let expected =
            switch stranger {
            case .hardLinkedPart: "f.bin.part is not this user's own file: it has 2 names (hard links); leaving it alone"
            case .otherUsersPart: "f.bin.part is not this user's own file: it belongs to user 65534, not to this one (0)"
            case .otherUsersJournal: "f.bin.fastget is not this user's own file: it belongs to user 65534, not to this one (0)"
            }
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: victim) == SHA256.hex(victimBytes))
        #expect(SHA256.hex(ofFile: part) == SHA256.hex(victimBytes))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin")))
        #expect(bodyGETs(server).isEmpty)
    }

    // Finding 7: derived names never stream into a link.

    @Test(arguments: ["/dev/null", "fifo"])
    func aLinkAtADerivedNameIsNeverStreamedInto(target: String) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        if target == "fifo" { #expect(mkfifo(directory.file("fifo"), 0o644) == 0) }
        #expect(symlink(target == "fifo" ? directory.file("fifo") : target, directory.file("big.bin")) == 0)
        let result = try run(["--max-time", "10", server.url("/big.bin")], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: big.bin is not a regular file"), "\(result.stderr)")
        #expect(!result.stderr.contains("wrote"), "\(result.stderr)")
        #expect(bodyGETs(server).isEmpty)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: directory.file("big.bin"))) != nil)
    }

    // Finding 9 and 10: `--dry-run` and `--create-dirs` refuse what a run refuses, first.

    @Test func aDryRunRefusesATooLongNameBeforeItsProbe() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["--dry-run", "-o", String(repeating: "n", count: 226), server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("is 226 bytes; fastget needs at most 225"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test func createDirsRefusesATooLongNameBeforeMakingDirectories() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(
            ["--create-dirs", "-o", "newdir/sub/" + String(repeating: "n", count: 226), server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(server.requests.isEmpty)
        #expect(try names(directory).isEmpty)
    }

    @Test func aDryRunReportsAForeignPartAsTheRunWould() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try write(Array(data[0..<1_500_000]), directory.file("f.bin.part"))
        let result = try run(["--dry-run", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "f.bin.part was not made by fastget (no journal beside it); leaving it alone\nhint: use --overwrite to replace it, or -c to continue it as the start of the file"
            ), "\(result.stderr)")
    }

    // Finding 11: `-c` on a link at NAME.

    @Test func continueOnALinkAtTheNameIsRefusedNamingIt() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let prefix = Array(data[0..<1_500_000])
        try write(prefix, directory.file("elsewhere"))
        #expect(symlink(directory.file("elsewhere"), directory.file("f.bin")) == 0)
        let result = try run(["-q", "-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: f.bin is a symbolic link; leaving it alone"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("elsewhere")) == SHA256.hex(prefix))
        #expect(bodyGETs(server).isEmpty)
    }

    // Finding 12: a copied mark counts for nothing.

    @Test func aMarkCopiedWithAPartCountsForNothing() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let elsewhere = try TemporaryDirectory()
        defer { elsewhere.remove() }
        let prefix = Array(data[0..<1_500_000])
        let original = elsewhere.file("f.bin.part")
        try write(prefix, original)
        let inode = try #require(FileSystem.entryStatus(original)).inode
        let mark = SidecarFiles.partMarkValue(inode: inode, url: server.url())
        #expect(try FileDescriptor.openRegular(original).setAttribute(SidecarFiles.partMark, mark))
        let copy = try runProcess("/bin/cp", ["-a", original, directory.file("f.bin.part")], in: directory.path)
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(FileSystem.attribute(directory.file("f.bin.part"), SidecarFiles.partMark) != nil)
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("f.bin.part was not made by fastget"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin.part")) == SHA256.hex(prefix))
    }
}
