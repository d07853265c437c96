import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// `fastget -c` on what aria2 or axel left: only the bytes their state file marks done are
/// kept, only the rest is fetched, and their state file goes after fastget's own rename.
@Suite struct ForeignContinueTests {
    let data = testBytes(count: 4 << 20, seed: 12)
    static let mib: Int64 = 1 << 20

    /// The file as the other tool left it: the server's length, the bytes it marks `done`
    /// right, everything else garbage (aria2 preallocates; axel's unwritten chunks are holes).
    func leftover(done: [ByteRange], filler: UInt8 = 0xA5) -> Data {
        var bytes = [UInt8](repeating: filler, count: data.count)
        for range in done { bytes[Int(range.start)..<Int(range.end)] = data[Int(range.start)..<Int(range.end)] }
        return Data(bytes)
    }

    /// The ranges of the server's ranged GETs, as half-open byte ranges.
    func requestedRanges(_ server: TestServer) -> [ByteRange] {
        server.requests.compactMap { request -> ByteRange? in
            guard request.method == "GET", let value = request.header("Range"), value.hasPrefix("bytes=") else { return nil }
            let bounds = value.dropFirst(6).split(separator: "-").compactMap { Int64($0) }
            return bounds.count == 2 ? ByteRange(start: bounds[0], end: bounds[1] + 1) : nil
        }
    }

    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
    }

    /// Leaves `done` bytes and `state` at `f.bin` and `f.bin` + `suffix`, runs `fastget -c`,
    /// and checks the file and that only the missing ranges were asked for.
    func continues(done: [ByteRange], state: [UInt8], suffix: String) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try leftover(done: done).write(to: URL(fileURLWithPath: directory.file("f.bin")))
        try Data(state).write(to: URL(fileURLWithPath: directory.file("f.bin" + suffix)))
        let result = try run(["-c", "-n", "4", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin" + suffix)), "its state file goes after the rename")
        var missing: [ByteRange] = []
        var cursor: Int64 = 0
        for range in done + [ByteRange(start: Int64(data.count), end: Int64(data.count))] {
            if range.start > cursor { missing.append(ByteRange(start: cursor, end: range.start)) }
            cursor = range.end
        }
        let asked = requestedRanges(server)
        #expect(asked.allSatisfy { range in missing.contains { $0.start <= range.start && range.end <= $0.end } }, "\(asked)")
        #expect(ByteRange.joined(asked) == missing, "every missing byte was fetched: \(asked)")
    }

    @Test(arguments: [UInt8(0), 1])
    func continuesWhatAria2LeftFetchingOnlyTheRest(version: UInt8) throws {
        let mib = ForeignContinueTests.mib
        let state = ForeignStateFiles.aria2(
            version: version, length: Int64(data.count), pieceLength: Int(mib), done: [0, 2], inFlight: [(1, [0, 1, 2, 3])])
        let done = [ByteRange(start: 0, end: mib + 4 * 16384), ByteRange(start: 2 * mib, end: 3 * mib)]
        try continues(done: done, state: state, suffix: ".aria2")
    }

    @Test func continuesWhatAxelLeftFetchingOnlyTheRest() throws {
        let mib = ForeignContinueTests.mib
        let state = ForeignStateFiles.axel(connections: [(mib + 12_345, 2 * mib), (3 * mib, 4 * mib)], done: 2 * mib + 12_345)
        try continues(done: [ByteRange(start: 0, end: mib + 12_345), ByteRange(start: 2 * mib, end: 3 * mib)], state: state, suffix: ".st")
    }

    /// A run stopped after `-c` adopted aria2's file; the rerun (with `-c` or without) resumes
    /// from the journal, which says what was adopted: the bytes kept unchecked (so the finished
    /// file is not marked complete) and which state file to remove after the rename.
    @Test(arguments: [true, false])
    func aStoppedRunKeepsTheStateFileAndTheRerunFinishes(rerunContinues: Bool) throws {
        var failing = TestFile(data)
        failing.drop = DropPlan(afterBytes: 65_536, times: 1_000_000)
        let (broken, whole, cut) = (Flag(), TestFile(data), failing)
        let server = try TestServer { _ in broken.isSet.load(ordering: .relaxed) ? .file(cut) : .file(whole) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mib = ForeignContinueTests.mib
        try leftover(done: [ByteRange(start: 0, end: mib)]).write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let state = ForeignStateFiles.aria2(version: 1, length: Int64(data.count), pieceLength: Int(mib), done: [0])
        try Data(state).write(to: URL(fileURLWithPath: directory.file("f.bin.aria2")))
        let arguments = ["-n", "2", "--retries", "0", "-o", "f.bin", server.url()]
        let stopped = try run(["-c"] + arguments, in: directory)
        #expect(stopped.status == 75, "\(stopped.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.aria2")), "kept until fastget's own rename")
        broken.isSet.store(false, ordering: .relaxed)
        let rerun = try run((rerunContinues ? ["-c"] : []) + arguments, in: directory)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.aria2")))
        // aria2's first MiB was never checked: the file is not marked complete.
        let again = try run(arguments, in: directory)
        #expect(again.status == 73, "\(again.stderr)")
        #expect(again.stderr.hasPrefix("fastget: error: f.bin already exists\n"), "\(again.stderr)")
    }

    /// A file at `NAME.st` or `NAME.aria2` that `-c` did not continue from (a Smalltalk
    /// source, a fresh download, a resume of fastget's own) is never removed; one that cannot
    /// be read as a state file refuses `-c` with a hint that keeps the user's bytes.
    @Test(arguments: [".st", ".aria2"])
    func aStateFileNotContinuedFromIsNeverRemoved(suffix: String) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notes = Data("my smalltalk source\n".utf8)
        try notes.write(to: URL(fileURLWithPath: directory.file("f.bin" + suffix)))
        let fresh = try run(["-c", "-n", "2", "-o", "f.bin", server.url()], in: directory)
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(FileManager.default.contents(atPath: directory.file("f.bin" + suffix)) == notes)
        // Now beside a file of the server's length that nothing marks complete.
        try FileManager.default.removeItem(atPath: directory.file("f.bin"))
        try leftover(done: []).write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let refused = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(refused.status == 73)
        #expect(
            refused.stderr.hasSuffix(
                "hint: move f.bin\(suffix) aside to continue f.bin as the start of the file, or use --overwrite to download it again\n"),
            "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("f.bin" + suffix)) == notes)
    }

    /// A link at `NAME.aria2` is not followed, even to a good control file: refused, and
    /// nothing is touched or fetched.
    @Test func aLinkAtTheStateFileIsRefusedUnfollowed() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mib = ForeignContinueTests.mib
        let file = leftover(done: [ByteRange(start: 0, end: mib)])
        try file.write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let state = ForeignStateFiles.aria2(version: 1, length: Int64(data.count), pieceLength: Int(mib), done: [0])
        try Data(state).write(to: URL(fileURLWithPath: directory.file("elsewhere")))
        try FileManager.default.createSymbolicLink(atPath: directory.file("f.bin.aria2"), withDestinationPath: "elsewhere")
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73)
        #expect(result.stderr.hasPrefix("fastget: error: f.bin.aria2 is a symbolic link; leaving it alone\n"), "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("f.bin")) == file)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: directory.file("f.bin.aria2"))) == "elsewhere")
        #expect(server.requests.allSatisfy { $0.method == "HEAD" }, "no byte fetched")
    }

    /// `--dry-run -c` reads the state file as the run would: refused the same way, or said to
    /// be continued from, with the ranges that are left; nothing written.
    @Test func aDryRunReadsTheStateFileAsTheRunWould() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mib = ForeignContinueTests.mib
        try leftover(done: []).write(to: URL(fileURLWithPath: directory.file("f.bin")))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: directory.file("f.bin.aria2")))
        let arguments = ["--dry-run", "-c", "-n", "1", "-o", "f.bin", server.url()]
        let refused = try run(arguments, in: directory)
        #expect(refused.status == 73)
        #expect(
            refused.stderr.hasPrefix(
                "fastget: error: cannot continue f.bin from f.bin.aria2: it is not an aria2 control file of version 0 or 1\n"),
            "\(refused.stderr)")
        let state = ForeignStateFiles.aria2(version: 1, length: Int64(data.count), pieceLength: Int(mib), done: [0, 2])
        try Data(state).write(to: URL(fileURLWithPath: directory.file("f.bin.aria2")))
        let plan = try run(arguments, in: directory)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("\nplan       2 ranges: \(mib)-\(2 * mib - 1), \(3 * mib)-\(4 * mib - 1); 1 connection\n"), "\(plan.stdout)")
        #expect(
            plan.stdout.contains("\ncontinues  from f.bin.aria2: aria2 marks \(2 * mib) bytes done; the rest is fetched\n"),
            "\(plan.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["f.bin", "f.bin.aria2"])
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }

    /// An empty file whose control file marks its nothing done needs no range: complete.
    @Test func anEmptyFileWithItsControlFileIsComplete() throws {
        let server = try TestServer(file: TestFile([]))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data().write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let state = ForeignStateFiles.aria2(version: 1, length: 0, pieceLength: 1 << 20, done: [])
        try Data(state).write(to: URL(fileURLWithPath: directory.file("f.bin.aria2")))
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "fastget: f.bin is complete: f.bin.aria2 marks all of its 0 bytes done\n")
        #expect(FileManager.default.contents(atPath: directory.file("f.bin")) == Data())
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.aria2")))
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }

    @Test func aControlFileForAnotherLengthIsRefusedAndNothingIsTouched() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = leftover(done: [])
        try file.write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let state = ForeignStateFiles.aria2(version: 1, length: Int64(data.count) + 1, pieceLength: 1 << 20, done: [0, 1, 2, 3])
        try Data(state).write(to: URL(fileURLWithPath: directory.file("f.bin.aria2")))
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 73)
        #expect(
            result.stderr.contains(
                "cannot continue f.bin from f.bin.aria2: it is for a file of \(data.count + 1) bytes, and the server's has \(data.count)"),
            "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("f.bin")) == file)
        #expect(server.requests.allSatisfy { $0.method == "HEAD" }, "no byte fetched")
    }

    @Test func aFullLengthFileWithoutADigestIsSaidToBeKeptByItsLengthAlone() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try leftover(done: []).write(to: URL(fileURLWithPath: directory.file("f.bin")))
        let result = try run(["-c", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "fastget: f.bin has the server's length (\(data.count) bytes); kept by its length alone, with no digest to check it\n")
    }

    /// Another program's `.part` replaced by `--overwrite` was never to be resumed: no "cannot
    /// be resumed" notice for it, even from a server without ranges.
    @Test func anotherProgramsPartReplacedByOverwriteIsNotSaidToBeUnresumable() throws {
        var file = TestFile(data)
        (file.honorsRange, file.advertisesRanges) = (false, false)
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data.prefix(1000)).write(to: URL(fileURLWithPath: directory.file("f.bin.part")))
        let result = try run(["--no-config", "-nv", "--overwrite", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(!result.stderr.contains("cannot be resumed"), "\(result.stderr)")
    }
}

/// A switch a server's handler reads.
private final class Flag: Sendable {
    let isSet = Atomic<Bool>(true)
}
