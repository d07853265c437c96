@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Linux reports a writeback error (EIO, ENOSPC, EDQUOT) to one `fsync`/`fdatasync` per open
/// file; the next sync on the same descriptor returns 0 although the lost pages never reached
/// the disk. So after one failed sync nothing may vouch for the file again: no later journal,
/// no final rename.
@Suite struct SyncFailureTests {
    static let size = 3 << 20
    static let data = testBytes(count: size, seed: 0x5EED_F00D)

    /// Three segments of 1 MiB at 1 MiB/s each: about a second, with a checkpoint every 50 ms.
    static func server() throws -> TestServer {
        try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
    }

    static func arguments(_ server: TestServer) -> [String] {
        ["-q", "-n", "3", "--checkpoint-interval", "0.05", "-o", "f.bin", server.url()]
    }

    /// The journal written when the `.part` was created, claiming no byte, is the last one.
    @Test func fdatasyncFailureAtTheFirstCheckpointKeepsTheFirstJournal() throws {
        let server = try SyncFailureTests.server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let failed = try FaultRun("fail=fdatasync@1", SyncFailureTests.arguments(server), in: directory.path)
        try failed.requireInjector()
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("fastget: error: fdatasync f.bin.part: Input/output error"), "\(failed.stderr)")
        #expect(failed.count("fail-fdatasync") == 1)
        // The failure path's last checkpoint must not sync again (it would succeed) nor write:
        // the only journal renamed into place is the first one.
        #expect(failed.count("calls-fdatasync") == 1)
        #expect(failed.count("calls-rename") == 1)
        let journal = try #require(try Checkpointer.load(directory.file("f.bin.fastget"))?.get())
        #expect(journal.bytesWritten == 0)
        #expect(failed.stderr.contains("hint: run the same command again to resume (journal: f.bin.fastget)"), "\(failed.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.part")))

        let rerun = try FaultRun(nil, SyncFailureTests.arguments(server), in: directory.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(SyncFailureTests.data))
    }

    @Test func fdatasyncFailureKeepsThePreviousJournal() throws {
        let server = try SyncFailureTests.server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let failed = try FaultRun("fail=fdatasync@2", SyncFailureTests.arguments(server), in: directory.path)
        try failed.requireInjector()
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("fastget: error: fdatasync f.bin.part: Input/output error"), "\(failed.stderr)")
        #expect(failed.stderr.contains("hint: run the same command again to resume (journal: f.bin.fastget)"), "\(failed.stderr)")
        #expect(failed.count("fail-fdatasync") == 1)
        // Two journals (the first, claiming no byte, and the first checkpoint's): the failed
        // sync ended the writing of journals.
        #expect(failed.count("calls-fdatasync") == 2)
        #expect(failed.count("calls-rename") == 2)
        let journal = try #require(try Checkpointer.load(directory.file("f.bin.fastget"))?.get())
        let part = try Data(contentsOf: URL(fileURLWithPath: directory.file("f.bin.part")))
        for segment in journal.segments {
            #expect(part[Int(segment.start)..<Int(segment.written)] == Data(SyncFailureTests.data[Int(segment.start)..<Int(segment.written)]))
        }

        let rerun = try FaultRun(nil, SyncFailureTests.arguments(server), in: directory.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(SyncFailureTests.data))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))
    }

    #if FASTGET_FAULTS
    /// In process, with the output file's syncs failing only while asked: the sync after them
    /// would succeed, and must not be believed.
    @Test func aFailedSyncFailsEveryLaterCheckpointAndTheFinish() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("f.bin")
        let output = try OutputFile(finalPath: path, length: 8192)
        let table = SegmentTable(ranges: [ByteRange(start: 0, end: 4096), ByteRange(start: 4096, end: 8192)])
        let header = Journal(
            url: "http://127.0.0.1/f.bin", finalURL: "http://127.0.0.1/f.bin", length: 8192,
            validator: nil, segments: [])
        let checkpointer = Checkpointer(path: path + ".fastget", output: output, header: header, started: MonotonicClock.seconds())
        let bytes = testBytes(count: 8192)
        func write(_ segment: Int) throws {
            let range = segment * 4096..<(segment + 1) * 4096
            try bytes[range].withUnsafeBytes { try output.write($0, at: Int64(range.lowerBound)) }
            table.segments[segment].written.store(Int64(range.upperBound), ordering: .releasing)
        }

        try write(0)
        #expect(try checkpointer.checkpoint(table) == 4096)
        let first = try Data(contentsOf: URL(fileURLWithPath: path + ".fastget"))

        try write(1)
        FaultInjection.failSyncs(of: output.partPath)
        #expect(throws: FastgetError.self) { try checkpointer.checkpoint(table) }
        FaultInjection.allowSyncs(of: output.partPath)
        #expect {
            try checkpointer.checkpoint(table)
        } throws: { error in
            (error as? FastgetError)?.message == "fdatasync \(output.partPath): Input/output error"
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".fastget")) == first)
        #expect(throws: FastgetError.self) { try output.finish(length: 8192, replacing: false) }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: output.partPath))
    }
    #endif
}
