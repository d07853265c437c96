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

    @Test func aStoppedRunKeepsTheStateFileAndTheRerunFinishes() throws {
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
        let arguments = ["-c", "-n", "2", "--retries", "0", "-o", "f.bin", server.url()]
        let stopped = try run(arguments, in: directory)
        #expect(stopped.status == 75, "\(stopped.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.aria2")), "kept until fastget's own rename")
        broken.isSet.store(false, ordering: .relaxed)
        let rerun = try run(arguments, in: directory)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.aria2")))
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
}

/// A switch a server's handler reads.
private final class Flag: Sendable {
    let isSet = Atomic<Bool>(true)
}
