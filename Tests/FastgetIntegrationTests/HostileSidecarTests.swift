@testable import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// Sidecar files are fastget's or untouched: links, FIFOs and other programs' `.part` files
/// planted beside the output, and names too long for their sidecars.
@Suite struct HostileSidecarTests {
    let data = testBytes(count: 4 << 20, seed: 2501)
    /// What a planted link points at: a file of the user's, which must keep its bytes.
    let victimBytes = testBytes(count: 4 << 20, seed: 2502)

    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// A directory holding the user's `victim` file.
    func directoryWithVictim() throws -> (TemporaryDirectory, victim: String) {
        let directory = try TemporaryDirectory()
        let victim = directory.file("victim")
        try Data(victimBytes).write(to: URL(fileURLWithPath: victim))
        return (directory, victim)
    }

    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
    }

    @Test(arguments: [[], ["--overwrite"], ["-c"]])
    func aLinkAtThePartIsRefusedAndItsTargetKept(flags: [String]) throws {
        let server = try TestServer(file: TestFile(data))
        let (directory, victim) = try directoryWithVictim()
        defer { directory.remove() }
        #expect(symlink(victim, directory.file("f.bin.part")) == 0)
        let result = try run(flags + ["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: f.bin.part is a symbolic link; leaving it alone"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: victim) == SHA256.hex(victimBytes))
        #expect(kind(directory.file("f.bin.part")) == S_IFLNK)
        #expect(kind(directory.file("f.bin")) == nil)
        #expect(!server.requests.contains { $0.method == "GET" && $0.header("Range") != "bytes=0-" })
    }

    @Test func aResumeWhosePartWasSwappedForALinkIsRefused() throws {
        let server = try TestServer(file: TestFile(data))
        let (directory, victim) = try directoryWithVictim()
        defer { directory.remove() }
        // A journal of this download claiming its first megabyte, and a link where its `.part` was.
        let length = Int64(data.count)
        let journal = Journal(
            url: server.url(), finalURL: server.url(), length: length, validator: .etag("\"fastget-test-1\""),
            segments: [Journal.Entry(start: 0, end: length, written: 1 << 20)])
        try Checkpointer.write(journal, to: directory.file("f.bin.fastget"), durably: false)
        #expect(symlink(victim, directory.file("f.bin.part")) == 0)
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("f.bin.part is a symbolic link; leaving it alone"))
        #expect(SHA256.hex(ofFile: victim) == SHA256.hex(victimBytes))
        #expect(kind(directory.file("f.bin.part")) == S_IFLNK)
    }

    /// Something planted at one sidecar's name, with the message that names it.
    enum Plant: String, CaseIterable, Sendable {
        case fifoAtPart, fifoAtJournal, fifoAtLock, linkToFIFOAtJournal, linkAtJournal, linkAtLock, directoryAtJournal

        var name: String {
            switch self {
            case .fifoAtPart: "f.bin.part"
            case .fifoAtJournal, .linkToFIFOAtJournal, .linkAtJournal, .directoryAtJournal: "f.bin.fastget"
            case .fifoAtLock, .linkAtLock: "f.bin.fastget.lock"
            }
        }

        /// Plants it in `directory`, next to `victim`.
        func plant(in directory: TemporaryDirectory, victim: String) {
            let path = directory.file(name)
            switch self {
            case .fifoAtPart, .fifoAtJournal, .fifoAtLock: #expect(mkfifo(path, 0o644) == 0)
            case .linkToFIFOAtJournal:
                #expect(mkfifo(directory.file("fifo"), 0o644) == 0)
                #expect(symlink(directory.file("fifo"), path) == 0)
            case .linkAtJournal, .linkAtLock: #expect(symlink(victim, path) == 0)
            case .directoryAtJournal: #expect(mkdir(path, 0o755) == 0)
            }
        }
    }

    @Test(arguments: Plant.allCases, [[], ["--overwrite"], ["--dry-run"], ["--max-time", "5"]])
    func anythingButARegularFileAtASidecarIsRefusedAtOnceAndKept(plant: Plant, flags: [String]) throws {
        // The lock is not looked at by a dry run, which takes none.
        if flags == ["--dry-run"] && plant.name.hasSuffix(".lock") { return }
        let server = try TestServer(file: TestFile(data))
        let (directory, victim) = try directoryWithVictim()
        defer { directory.remove() }
        plant.plant(in: directory, victim: victim)
        let before = kind(directory.file(plant.name))
        // Bounded: a FIFO opened for reading would block here for good.
        let result = try run(flags + ["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(plant) \(flags): \(result.stderr)")
        #expect(result.stderr.contains("fastget: error: \(plant.name) is a"), "\(result.stderr)")
        #expect(result.stderr.contains("leaving it alone"), "\(result.stderr)")
        #expect(kind(directory.file(plant.name)) == before)
        #expect(SHA256.hex(ofFile: victim) == SHA256.hex(victimBytes))
        #expect(kind(directory.file("f.bin")) == nil)
        #expect(!server.requests.contains { $0.method == "GET" && $0.header("Range") != "bytes=0-" })
    }

    /// Another program's partial file: the first 1.5 MB of the download, with no journal.
    func plantForeignPart(in directory: TemporaryDirectory) throws -> String {
        let part = directory.file("f.bin.part")
        try Data(data[0..<1_500_000]).write(to: URL(fileURLWithPath: part))
        return part
    }

    @Test func aPartWithoutAJournalIsRefusedWithAHint() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let part = try plantForeignPart(in: directory)
        let result = try run(["-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "fastget: error: f.bin.part was not made by fastget (no journal beside it); leaving it alone\nhint: use --overwrite to replace it, or -c to continue it as the start of the file"
            ), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: part) == SHA256.hex(Array(data[0..<1_500_000])))
        #expect(!server.requests.contains { $0.method == "GET" && $0.header("Range") != "bytes=0-" })
    }

    @Test func overwriteReplacesAForeignPartWithoutWritingThroughIt() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let part = try plantForeignPart(in: directory)
        // A second name for the same file: writing into the `.part` would show through it.
        #expect(link(part, directory.file("other-name")) == 0)
        let result = try run(["-q", "--overwrite", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(SHA256.hex(ofFile: directory.file("other-name")) == SHA256.hex(Array(data[0..<1_500_000])))
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["f.bin", "other-name"])
    }

    @Test func continueTakesAForeignPartAsThePrefix() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try plantForeignPart(in: directory)
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("continuing f.bin.part from byte 1500000"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let ranged = server.responses.filter { $0.method == "GET" }
        #expect(ranged.reduce(Int64(0)) { $0 + $1.bodyBytes } == Int64(data.count - 1_500_000))
        #expect(server.requests.compactMap { $0.header("Range") }.allSatisfy { !$0.hasPrefix("bytes=0-") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["f.bin"])
    }

    @Test func continueOnAWholeForeignPartRenamesItWithoutFetching() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data).write(to: URL(fileURLWithPath: directory.file("f.bin.part")))
        let result = try run(["-q", "-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(server.responses.filter { $0.method == "GET" }.allSatisfy { $0.bodyBytes == 0 })
    }

    @Test func aKilledSmallDownloadWithoutAJournalIsRunAgain() throws {
        // Small enough to start without a first journal; slow enough to be killed half-way.
        let small = testBytes(count: 200_000, seed: 2503)
        let server = try TestServer(file: TestFile(small), TestServer.Configuration(rate: { _ in 20_000 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-o", "f.bin", server.url()]
        let first = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        first.wait(upTo: 20) { server.responses.contains { $0.method == "GET" } || server.requests.contains { $0.method == "GET" } }
        first.wait(upTo: 20) { FileManager.default.fileExists(atPath: directory.file("f.bin.part")) }
        first.signal(SIGKILL)
        #expect(first.waitForExit(20))
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.part")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))
        let again = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(small))
        #expect(FileSystem.attribute(directory.file("f.bin"), SidecarFiles.partMark)?.hasPrefix("d ") == true, "a finished file is no .part")
    }
    /// Names of 234–240 bytes used to pass `NAME_MAX` with the journal's temporary. A name the
    /// server gives is shortened to leave room; one the user gives is refused before any request.
    @Test(arguments: [234, 237, 240])
    func aLongNameFromContentDispositionIsShortenedAndDownloads(bytes: Int) throws {
        var file = TestFile(data)
        let name = String(repeating: "d", count: bytes - 4) + ".bin"
        file.extraFields = ["Content-Disposition: attachment; filename=\"\(name)\""]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "4", server.url("/x")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(saved == [String(name.prefix(SidecarFiles.longestNameBytes))])
        #expect(SHA256.hex(ofFile: directory.file(saved.first ?? "")) == SHA256.hex(data))
    }

    @Test(arguments: [234, 240])
    func aLongNameFromTheURLIsShortenedAndDownloads(bytes: Int) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = String(repeating: "u", count: bytes)
        let result = try run(["-q", "-n", "4", server.url("/" + name)], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(saved == [String(name.prefix(SidecarFiles.longestNameBytes))])
        #expect(SHA256.hex(ofFile: directory.file(saved.first ?? "")) == SHA256.hex(data))
    }

    @Test(arguments: [226, 234, 240])
    func aGivenNameTooLongForItsSidecarsIsRefusedBeforeAnyRequest(bytes: Int) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = String(repeating: "o", count: bytes)
        let result = try run(["-o", name, server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("is \(bytes) bytes; fastget needs at most 225"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: use -o FILE with a shorter name"))
        #expect(server.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Another program's `.part` that appears while the probe is out (a browser saving the same
    /// name) is refused as one there from the start is, not replaced: the look taken before
    /// the probe did not see it.
    @Test func aForeignPartMadeDuringTheProbeIsKept() throws {
        let (directory, _) = try directoryWithVictim()
        defer { directory.remove() }
        let part = directory.file("f.bin.part")
        let file = TestFile(data)
        let planted = Locked(false)
        let server = try TestServer { [victimBytes] request in
            if !planted.withLock({ done in
                defer { done = true }; return done
            }) {
                _ = FileManager.default.createFile(atPath: part, contents: Data(victimBytes[..<4096]))
            }
            return .file(file)
        }
        let result = try run(["-q", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: part) == SHA256.hex(Array(victimBytes[..<4096])))
        #expect(kind(directory.file("f.bin")) == nil)
    }
}
