@testable import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

@Suite struct SidecarFilesTests {
    @Test func namesThePartTheJournalAndTheLock() {
        let files = SidecarFiles("dir/a.iso")
        #expect([files.part, files.journal, files.lock] == ["dir/a.iso.part", "dir/a.iso.fastget", "dir/a.iso.fastget.lock"])
    }

    @Test(arguments: [("dir/a.iso.fastget", "dir/a.iso"), ("a.fastget", "a"), ("dir/..fastget", "dir/.")])
    func aJournalNamesItsDownload(journal: String, destination: String) {
        #expect(SidecarFiles.owning(journal: journal)?.destination == destination)
    }

    /// A queue restoring DIR must not take `DIR/.fastget` (a journal of `-o DIR/`) for a
    /// download whose destination is the directory itself.
    @Test(arguments: ["dir/.fastget", ".fastget", "dir/a.iso", "dir/a.iso.fastget.lock", "dir/a.fastget.tmp"])
    func anythingElseNamesNone(path: String) {
        #expect(SidecarFiles.owning(journal: path) == nil)
    }

    /// The journal's temporary names cannot be guessed: no pid, no counter, 17 random letters
    /// and digits each, never the same twice.
    @Test func theJournalsTemporaryNamesAreRandom() {
        let journalPath = "dir/f.bin.fastget"
        let names = (0..<200).map { _ in SidecarFiles.temporary(forJournal: journalPath) }
        #expect(Set(names).count == names.count)
        for name in names {
            let random = name.dropFirst(journalPath.count + 1).dropLast(4)
            #expect(name.hasPrefix(journalPath + ".") && name.hasSuffix(".tmp"))
            #expect(random.utf8.count == ProcessIdentity.longestSuffixBytes, "\(name)")
            #expect(random.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }, "\(name)")
            #expect(!name.contains(".\(getpid())-"), "\(name)")
        }
    }

    /// Links planted at the names a pid and a counter would give (what a hostile directory
    /// could take ahead of a run) are passed over, their target untouched, and the journal written.
    @Test func aLinkAtTheJournalsTemporaryNameIsNeverWrittenThrough() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let victim = directory.file("victim")
        let mine = Data("the user's file\n".utf8)
        try mine.write(to: URL(fileURLWithPath: victim))
        let journalPath = directory.file("f.bin.fastget")
        let planted = (1...80).map { journalPath + ".\(getpid())-\($0).tmp" }
        for path in planted { #expect(symlink(victim, path) == 0) }
        let journal = Journal(
            url: "http://h/f", finalURL: "http://h/f", length: 10, validator: nil, segments: [Journal.Entry(start: 0, end: 10, written: 0)])
        try Checkpointer.write(journal, to: journalPath, durably: true)
        #expect(FileManager.default.contents(atPath: victim) == mine)
        #expect(try Checkpointer.load(journalPath)?.get() == journal)
        for path in planted { #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == victim) }
    }

    /// Every sidecar of a name of the longest length fastget derives fits within `NAME_MAX`,
    /// the temporary with the largest pid and counter too.
    @Test func theLongestDerivedNameLeavesRoomForEverySidecar() {
        let name = FileName.sanitized(Array(repeating: UInt8(ascii: "x"), count: 300)) ?? ""
        let files = SidecarFiles(name)
        let temporary = SidecarFiles.temporary(forJournal: files.journal)
        #expect([files.part, files.journal, files.lock, temporary].map(\.utf8.count).max() == 255)
    }

    @Test(arguments: [225, 226, 240])
    func aGivenNameTooLongForItsSidecarsIsRefused(bytes: Int) {
        let files = SidecarFiles("dir/" + String(repeating: "y", count: bytes))
        let refused: Bool
        do throws(FastgetError) {
            try files.checkNameLength()
            refused = false
        } catch {
            refused = true
            #expect(error.code == .cannotCreateOutput && error.message.contains("is \(bytes) bytes; fastget needs at most 225"))
        }
        #expect(refused == (bytes > 225))
    }
}

@Suite struct ByteCountTests {
    @Test(
        arguments: [
            (0.0, "0 B"), (1023.0, "1023 B"), (1536.0, "1.50 KiB"), (10.0 * 1_099_511_627_776, "10.0 TiB"),
            (2.0 * 1_125_899_906_842_624, "2.00 PiB"),
        ] as [(Double, String)])
    func sizes(value: Double, text: String) {
        #expect(ByteCount.formatted(value) == text)
    }

    /// Public: an embedder may pass a rate over no time, or anything else a Double holds.
    @Test(arguments: [Double.infinity, -.infinity, .nan, 1e40, -1, .greatestFiniteMagnitude])
    func whatIsNoSizeIsADash(value: Double) {
        #expect(ByteCount.formatted(value) == "-")
    }

    @Test func decimalsRoundAndKeepTheSign() {
        #expect(ByteCount.decimal(1.005, digits: 1) == "1.0")
        #expect(ByteCount.decimal(-1.25, digits: 2) == "-1.25")
        #expect(ByteCount.decimal(2.5, digits: 40) == "2.500000")
        #expect(ByteCount.decimal(.nan, digits: 2) == "-")
    }
}

@Suite struct TransferControlTests {
    /// Back-off delays come from arithmetic: whatever is not a positive number waits not at all.
    @Test(arguments: [0, -1, -Double.infinity, .nan])
    func aSleepOfNothingReturnsAtOnce(seconds: Double) {
        let control = TransferControl()
        let started = MonotonicClock.seconds()
        control.sleep(seconds: seconds)
        #expect(MonotonicClock.seconds() - started < 1)
    }

    @Test func aStopEndsASleep() throws {
        let control = TransferControl()
        let thread = try PosixThread { control.sleep(seconds: 30) }
        let started = MonotonicClock.seconds()
        control.stop()
        thread.join()
        #expect(MonotonicClock.seconds() - started < 5)
    }

    @Test func aNudgeEndsASleepWithoutStopping() throws {
        let control = TransferControl()
        let done = Atomic<Bool>(false)
        let thread = try PosixThread {
            control.sleep(seconds: 30)
            done.store(true, ordering: .releasing)
        }
        // A nudge before the thread sleeps wakes nobody: nudge until it has returned.
        let started = MonotonicClock.seconds()
        while !done.load(ordering: .acquiring) && MonotonicClock.seconds() - started < 10 {
            control.nudge()
            MonotonicClock.sleep(seconds: 0.001)
        }
        thread.join()
        #expect(MonotonicClock.seconds() - started < 5)
        #expect(!control.isStopped)
    }
}

/// When the coordinator starts writeback of a segment's bytes.
@Suite struct WritebackRuleTests {
    let step = Coordinator.writebackStep

    @Test func everyStepOfBytesAndTheRestOfACompleteSegment() {
        #expect(Coordinator.writeback(written: step - 1, end: 10 * step, flushed: 0) == nil)
        #expect(Coordinator.writeback(written: step, end: 10 * step, flushed: 0) == ByteRange(start: 0, end: step))
        #expect(Coordinator.writeback(written: 2 * step + 5, end: 10 * step, flushed: step) == ByteRange(start: step, end: 2 * step + 5))
        // A segment smaller than a step, or the last piece of one, goes once it is complete,
        // so that the final fsync does not find it all still dirty.
        #expect(Coordinator.writeback(written: 4096, end: 4096, flushed: 0) == ByteRange(start: 0, end: 4096))
        #expect(Coordinator.writeback(written: 3 * step + 7, end: 3 * step + 7, flushed: 3 * step) == ByteRange(start: 3 * step, end: 3 * step + 7))
        #expect(Coordinator.writeback(written: 4096, end: 4096, flushed: 4096) == nil, "nothing new")
    }
}
