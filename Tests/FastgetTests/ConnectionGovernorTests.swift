@testable import Fastget
import Testing

/// The automatic connection count's rule, fed synthetic clocks and byte counts.
@Suite struct ConnectionGovernorTests {
    /// Feeds `governor` ticks every 0.05 s at `rate(count)` bytes per second, of which the
    /// connections there before the last step carry `earlier(count)`, every connection
    /// delivering, until it changes the count or `seconds` pass; returns the change.
    func run(
        _ governor: inout ConnectionGovernor, from start: Double, seconds: Double = 5, bytes: inout Int64,
        remaining: Int64 = 1 << 40, earlier: (Int) -> Double = { _ in 0 }, rate: (Int) -> Double
    ) -> (change: ConnectionGovernor.Change?, at: Double) {
        var now = start
        var earlierBytes: Int64 = 0
        while now < start + seconds {
            now += 0.05
            bytes += Int64(rate(governor.count) * 0.05)
            earlierBytes += Int64(earlier(governor.count) * 0.05)
            if let change = governor.tick(
                now: now, bytes: bytes, earlier: earlierBytes, streaming: governor.count, remaining: remaining, latency: 0.001)
            {
                return (change, now)
            }
        }
        return (nil, now)
    }

    @Test func growsFastWhileEachConnectionAddsItsShareUpToTheCap() {
        // Every connection capped at 2 MiB/s: 1 → 4 → 16, then no more.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let capped = { (count: Int) in Double(count) * 2 * 1_048_576 }
        let first = run(&governor, from: 0, bytes: &bytes, rate: capped)
        #expect(first.change?.count == 4)
        let second = run(&governor, from: first.at, bytes: &bytes, rate: capped)
        #expect(second.change?.count == 16)
        let third = run(&governor, from: second.at, bytes: &bytes, rate: capped)
        #expect(third.change?.count == 16 && third.change?.reason.hasSuffix("at the cap of 16") == true, "\(String(describing: third.change))")
        #expect(governor.count == 16)
    }

    @Test func theFirstStepComesOnceSlowStartsLastTwoLooksAgree() {
        // A steady connection: after the ramp (0.1 s), the first looks come every 0.15 s; the
        // second and third looks see the same rate, and those two steps are the measurement
        // (0.55 s); no window of its own follows them (0.7 s before).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let first = run(&governor, from: 0, bytes: &bytes) { _ in 1_048_576 }
        #expect(first.change?.count == 4)
        #expect(first.at < 0.6, "the first step came at \(first.at) s")
    }

    @Test func goesBackWhenMoreConnectionsDoNotHelp() {
        // The link is the limit: more connections bring nothing; the count returns to 1.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let link = { (_: Int) in 1000.0 * 1_048_576 }
        // The one connection there before each step gets its share of the link, less than before.
        let share = { (count: Int) in link(count) / Double(count) }
        let first = run(&governor, from: 0, bytes: &bytes, rate: link)
        #expect(first.change?.count == 4)
        let second = run(&governor, from: first.at, bytes: &bytes, earlier: share, rate: link)
        #expect(second.change?.count == 1 && second.change?.reason.hasSuffix("back to 1") == true, "\(String(describing: second.change))")
        // Settled: nothing changes until the next try, one connection more, seconds later.
        let third = run(&governor, from: second.at, seconds: ConnectionGovernor.reprobeInterval - 0.5, bytes: &bytes, rate: link)
        #expect(third.change == nil)
        let fourth = run(&governor, from: third.at, bytes: &bytes, rate: link)
        #expect(fourth.change?.count == 2)
        let fifth = run(&governor, from: fourth.at, bytes: &bytes, earlier: share, rate: link)
        #expect(fifth.change?.count == 1)
    }

    @Test func aShortMeasurementBeforeAStepDoesNotMakeIdleConnectionsLookUseful() {
        // The one connection carries 4 MiB/s, but the measurement before the step caught a stall
        // (1 MiB/s); the three added bring nothing. Compared with the rate before alone, they
        // would seem to bring a connection's worth each; the first connection's rate in the
        // same window shows they do not.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let first = run(&governor, from: 0, bytes: &bytes) { _ in 1_048_576 }
        #expect(first.change?.count == 4)
        let carried = { (_: Int) in 4.0 * 1_048_576 }
        let second = run(&governor, from: first.at, bytes: &bytes, earlier: carried, rate: carried)
        #expect(second.change?.count == 1 && second.change?.reason.hasSuffix("back to 1") == true, "\(String(describing: second.change))")
    }

    @Test func doublesWhenConnectionsHelpALittle() {
        // Each added connection brings a quarter of what the first one does: doubling, never +1
        // (a gain of one connection in many is lost in a lossy path's noise).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let diminishing = { (count: Int) in (1 + 0.25 * Double(count - 1)) * 1_048_576 }
        let first = run(&governor, from: 0, bytes: &bytes, rate: diminishing)
        #expect(first.change?.count == 4)
        let second = run(&governor, from: first.at, bytes: &bytes, rate: diminishing)
        #expect(second.change?.count == 8, "\(String(describing: second.change))")
    }

    @Test func neverGrowsForWhatIsAlmostDone() {
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let result = run(&governor, from: 0, bytes: &bytes, remaining: 64 * 1024) { _ in 2 * 1_048_576 }
        #expect(result.change == nil && governor.count == 1)
    }

    @Test func waitsForNewConnectionsToDeliverBeforeMeasuring() {
        var governor = ConnectionGovernor(maximum: 16, initial: 4, now: 0)
        // Only one of four delivers: no measurement starts before the start-up limit.
        var now = 0.0
        var bytes: Int64 = 0
        while now < ConnectionGovernor.startupLimit - 0.1 {
            now += 0.05
            bytes += 100_000
            #expect(governor.tick(now: now, bytes: bytes, streaming: 1, remaining: 1 << 40, latency: 0.001) == nil)
        }
    }

    @Test func settlesWhereTheHostsCapStopsIt() {
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let capped = { (count: Int) in Double(count) * 2 * 1_048_576 }
        let first = run(&governor, from: 0, bytes: &bytes, rate: capped)
        #expect(first.change?.count == 4)
        governor.limited(to: 2, now: first.at)
        #expect(governor.count == 2)
    }

    @Test func aCapThatGrantsNothingLeavesOneConnection() {
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        governor.limited(to: 0, now: 1)
        #expect(governor.count == 1)
    }
}
