@testable import Fastget
import Testing

/// The one decision of how many connections a pass uses, as a pure function.
@Suite struct ConnectionPlanTests {
    static let mib: Int64 = 1 << 20

    func options(_ segments: Int? = nil) -> DownloadOptions {
        var options = DownloadOptions()
        options.segments = segments
        return options
    }

    /// A fresh, ranged file of `length` bytes, cut as a run cuts it.
    func fresh(_ length: Int64, _ options: DownloadOptions, hosts: Int = 1) -> ConnectionPlan.Work {
        let ranges = SegmentPlan.ranges(length: length, options: options)
        return ConnectionPlan.Work(ranged: true, unfinished: ranges.count, remaining: length, hosts: hosts)
    }

    @Test func withoutACountGrowsFromOneUpToTheHostCap() {
        let plan = ConnectionPlan.resolve(options(), fresh(64 * Self.mib, options()), cap: 16)
        #expect(plan.count == .automatic(first: 1, maximum: 16))
        #expect(plan.connections == .automatic(upTo: 16))
        #expect(ConnectionPlan.freshSegments(options()) == 1)
    }

    @Test func aCountOfOneIsOneConnection() {
        let plan = ConnectionPlan.resolve(options(1), fresh(64 * Self.mib, options(1)), cap: 16)
        #expect(plan.count == .fixed(1) && plan.first == 1 && plan.most == 1)
    }

    @Test func aFixedCountIsKeptWhateverTheHostCap() {
        // The per-host cap bounds what an automatic count opens; a count asked for is used.
        #expect(ConnectionPlan.resolve(options(8), fresh(64 * Self.mib, options(8)), cap: 4).count == .fixed(8))
        #expect(ConnectionPlan.resolve(options(), fresh(64 * Self.mib, options()), cap: 4).count == .automatic(first: 1, maximum: 4))
    }

    @Test func aFixedCountIsAtMostOnePerSegment() {
        // 3 MiB cannot make 8 segments of at least 1 MiB: 3 connections, one per segment.
        let plan = ConnectionPlan.resolve(options(8), fresh(3 * Self.mib, options(8)), cap: 16)
        #expect(plan.count == .fixed(3))
    }

    @Test func aServerWithoutRangesOrALengthGetsOneStream() {
        let work = ConnectionPlan.Work(ranged: false, unfinished: 1, remaining: 64 * Self.mib)
        #expect(ConnectionPlan.resolve(options(), work, cap: 16).count == .fixed(1))
        #expect(ConnectionPlan.resolve(options(8), work, cap: 16).count == .fixed(1))
        let unknown = ConnectionPlan.Work(ranged: false, unfinished: 0, remaining: 0)
        #expect(ConnectionPlan.resolve(options(8), unknown, cap: 16).count == .fixed(1))
    }

    @Test func aFileForOneRequestGetsOneConnection() {
        #expect(ConnectionPlan.resolve(options(), fresh(Coordinator.inlineLimit, options()), cap: 16).count == .fixed(1))
        #expect(
            ConnectionPlan.resolve(options(), fresh(Coordinator.inlineLimit + 1, options()), cap: 16).count
                == .automatic(first: 1, maximum: 16))
        // A low-speed limit is watched from worker threads, which an added connection may join.
        var watched = options()
        watched.speedLimit = 1000
        #expect(ConnectionPlan.resolve(watched, fresh(100_000, watched), cap: 16).count == .automatic(first: 1, maximum: 16))
    }

    @Test func writtenOutInOrderUsesEightWithinTheCap() {
        let units = ConnectionPlan.Work(ranged: true, inOrder: true, unfinished: 128, remaining: 64 * Self.mib)
        #expect(ConnectionPlan.resolve(options(), units, cap: 16).count == .fixed(8))
        #expect(ConnectionPlan.resolve(options(), units, cap: 4).count == .fixed(4))
        #expect(ConnectionPlan.resolve(options(12), units, cap: 4).count == .fixed(12))
        let one = ConnectionPlan.Work(ranged: true, inOrder: true, unfinished: 1, remaining: 100_000)
        #expect(ConnectionPlan.resolve(options(), one, cap: 16).count == .fixed(1))
    }

    @Test func mirrorsOnOtherHostsAddTheirCapUpToTheMostACountMayAsk() {
        #expect(ConnectionPlan.resolve(options(), fresh(64 * Self.mib, options(), hosts: 3), cap: 16).count == .automatic(first: 1, maximum: 48))
        #expect(ConnectionPlan.resolve(options(), fresh(64 * Self.mib, options(), hosts: 5), cap: 16).count == .automatic(first: 1, maximum: 64))
        #expect(ConnectionPlan.resolve(options(4), fresh(64 * Self.mib, options(4), hosts: 3), cap: 16).count == .fixed(4))
    }

    @Test func aResumedTableStartsOneWorkerPerUnfinishedSegmentUpToTheCount() {
        let records = [
            SegmentRecord(start: 0, end: 4 * Self.mib, written: 4 * Self.mib),
            SegmentRecord(start: 4 * Self.mib, end: 8 * Self.mib, written: 5 * Self.mib),
            SegmentRecord(start: 8 * Self.mib, end: 12 * Self.mib, written: 8 * Self.mib),
        ]
        for (asked, expected) in [(2, ConnectionPlan.Count.fixed(2)), (16, .fixed(6))] {
            let table = SegmentPlan.resumed(records, options: options(asked)).filter { $0.written < $0.end }
            let work = ConnectionPlan.Work(ranged: true, unfinished: table.count, remaining: table.reduce(0) { $0 + $1.end - $1.written })
            #expect(ConnectionPlan.resolve(options(asked), work, cap: 16).count == expected, "-n \(asked): \(table)")
        }
        // An automatic count keeps the journal's segments and starts with one.
        #expect(SegmentPlan.resumed(records, options: options()) == records)
        let work = ConnectionPlan.Work(ranged: true, unfinished: 2, remaining: 7 * Self.mib)
        #expect(ConnectionPlan.resolve(options(), work, cap: 16).count == .automatic(first: 1, maximum: 16))
    }
}
