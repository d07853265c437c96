@testable import Fastget
import Testing

/// Which segment an idle worker steals from, and where it splits it.
@Suite struct SegmentStealTests {
    /// Two owned segments: `a` has 512 KiB left at a burst's 1 GB/s, `b` 256 KiB at 1 MB/s.
    func table() -> (SegmentTable, a: Segment, b: Segment) {
        let table = SegmentTable(ranges: [ByteRange(start: 0, end: 1 << 20), ByteRange(start: 1 << 20, end: 2 << 20)])
        let (a, b) = (table.segments[0], table.segments[1])
        for segment in [a, b] { segment.owned.store(true, ordering: .relaxed) }
        a.written.store(512 * 1024, ordering: .relaxed)
        a.speed.store(1_000_000_000, ordering: .relaxed)
        a.moved.store(1_000, ordering: .relaxed)
        b.written.store((2 << 20) - 256 * 1024, ordering: .relaxed)
        b.speed.store(1_000_000, ordering: .relaxed)
        b.moved.store(5_000, ordering: .relaxed)
        return (table, a, b)
    }

    @Test func byTheirSpeedsTheSlowerOneIsTaken() throws {
        let (table, a, b) = table()
        let taken = try #require(table.steal(minimum: 16 * 1024, reserve: 32 * 1024, thiefSpeed: 0, minimumETA: 0.02, stalledBefore: 1_000))
        #expect(taken.start > b.start)
        #expect(a.end.load(ordering: .relaxed) == 1 << 20)
    }

    @Test func aSilentSegmentIsTakenWhateverItsSpeed() throws {
        let (table, a, b) = table()
        // `a` wrote nothing since 1 µs, `b` since 5 µs: at 2 µs only `a` is stalled.
        let taken = try #require(table.steal(minimum: 16 * 1024, reserve: 32 * 1024, thiefSpeed: 0, minimumETA: 0.02, stalledBefore: 2_000))
        // Split evenly (its speed says nothing now): half of its 512 KiB.
        #expect(taken.start == 768 * 1024)
        #expect(taken.end.load(ordering: .relaxed) == 1 << 20)
        #expect(a.end.load(ordering: .relaxed) == 768 * 1024)
        #expect(b.end.load(ordering: .relaxed) == 2 << 20)
    }

    @Test func ofTwoStalledTheOneWithMoreLeftIsTaken() throws {
        let (table, a, _) = table()
        let taken = try #require(table.steal(minimum: 16 * 1024, reserve: 32 * 1024, thiefSpeed: 0, minimumETA: 0.02, stalledBefore: 9_000))
        #expect(taken.start == 768 * 1024)
        #expect(a.end.load(ordering: .relaxed) == 768 * 1024)
    }

    @Test func aSegmentWithoutBytesYetIsNotStalled() throws {
        let (table, a, b) = table()
        a.moved.store(0, ordering: .relaxed)
        let taken = try #require(table.steal(minimum: 16 * 1024, reserve: 32 * 1024, thiefSpeed: 0, minimumETA: 0.02, stalledBefore: 2_000))
        #expect(taken.start > b.start)
    }

    @Test func aSmallSilentTailDoesNotHideTheRestFromThieves() throws {
        // `a` is silent with 50 KiB left: half of it is under the 32 KiB a steal must take, so
        // it is no stalled victim; by its speed (1 kB/s) it is the one to take, and a fast
        // thief takes all it may of it.
        let (table, a, _) = table()
        a.written.store((1 << 20) - 50 * 1024, ordering: .relaxed)
        a.speed.store(1000, ordering: .relaxed)
        let taken = try #require(
            table.steal(minimum: 32 * 1024, reserve: 32 * 1024, thiefSpeed: 1_000_000, minimumETA: 0.02, stalledBefore: 2_000))
        #expect(taken.start == (1 << 20) - 46 * 1024)
    }

    @Test func aReleasedSegmentIsNotStalledForItsNextWorker() throws {
        let (table, a, _) = table()
        a.owned.store(false, ordering: .relaxed)
        let claimed = try #require(table.claim())
        #expect(claimed === a && a.moved.load(ordering: .relaxed) == 0)
    }
}
