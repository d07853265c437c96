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
        // Every connection capped at 2 MiB/s from its first byte (kernel pacing): 1 → 4 → 16,
        // then no more. Four carry four times one as soon as they deliver, so 16 come a look
        // after them (0.1 s), not after a ramp and a window (0.25 s and more).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let capped = { (count: Int) in Double(count) * 2 * 1_048_576 }
        let first = run(&governor, from: 0, bytes: &bytes, rate: capped)
        #expect(first.change?.count == 4)
        let second = run(&governor, from: first.at, bytes: &bytes, rate: capped)
        #expect(second.change?.count == 16)
        #expect(second.at - first.at < 0.2, "16 came \(second.at - first.at) s after 4")
        let third = run(&governor, from: second.at, bytes: &bytes, rate: capped)
        #expect(third.change?.count == 16 && third.change?.reason.hasSuffix("at the cap of 16") == true, "\(String(describing: third.change))")
        #expect(governor.count == 16)
    }

    @Test func theFirstStepComesOnceSlowStartsLastTwoLooksAgree() {
        // A steady connection: its looks (0.1 s each) start as soon as it delivers and are
        // taken on every tick, so the first two that see the same rate are the measurement
        // (0.25 s). Looks at fixed times after a ramp took 0.55 s; a window of its own, 0.7 s.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        let first = run(&governor, from: 0, bytes: &bytes) { _ in 1_048_576 }
        #expect(first.change?.count == 4)
        #expect(first.at < 0.3, "the first step came at \(first.at) s")
    }

    @Test func newConnectionsFirstAllowanceIsNoEarlyGain() throws {
        // A server that sends in bursts: the one connection went silent for 0.1 s once. Four
        // connections then bring four times its rate, but only for their first half second (a
        // new request's first allowance): that is no reason to go to 16 at once (a look after
        // they deliver, 0.07 s), only on a window of its own (0.27 s and more).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        var now = 0.0
        var fourAt: Double?
        var sixteenAt: Double?
        while now < 2, sixteenAt == nil {
            now += 0.02
            let silent = now > 0.1 && now <= 0.2
            let rate = governor.count == 1 ? 1_048_576.0 : now - (fourAt ?? now) < 0.5 ? 4 * 1_048_576.0 : 1_048_576.0
            if !silent { bytes += Int64(rate * 0.02) }
            if let change = governor.tick(now: now, bytes: bytes, streaming: governor.count, remaining: 1 << 40, latency: 0.001) {
                if change.count == 4 { fourAt = now }
                if change.count == 16 { sixteenAt = now }
            }
        }
        let four = try #require(fourAt)
        #expect(sixteenAt.map { $0 - four > 0.15 } ?? true, "16 came \(sixteenAt! - four) s after 4")
    }

    @Test func aRateStillGrowingIsNotTheFirstMeasurement() {
        // Slow start: the rate doubles every 0.1 s for a second, then holds. No step is taken
        // on a look inside the doubling (its two looks never agree), only once it holds.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var bytes: Int64 = 0
        var now = 0.0
        var change: ConnectionGovernor.Change?
        while change == nil && now < 3 {
            now += 0.02
            bytes += Int64(65_536 * Double(1 << min(10, Int(now * 10))) * 0.02)
            change = governor.tick(now: now, bytes: bytes, streaming: 1, remaining: 1 << 40, latency: 0.04)
        }
        #expect(change?.count == 4)
        #expect(now > 1.15 && now < 1.5, "the first step came at \(now) s")
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

/// Judgments a noisy path puts off.
@Suite struct ConnectionGovernorNoiseTests {
    @Test func aNoisyStepIsJudgedOverALongerWindowBeforeItIsUndone() {
        // A lossy path, 160 ms a request: in every 0.1 s each connection sends 2 MiB/s or
        // stalls, at random. Added connections carry nothing for their first second (a
        // handshake and a slow start that loss cut short). The first window after the step
        // sees none of them, and it is not steady: rather than an undo, the same window goes
        // on, twice as long, which sees the gain; the step stays and the count grows.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var now = 0.0
        var bytes: Int64 = 0
        var earlier: Int64 = 0
        var stepAt: Double?
        var changes: [(at: Double, count: Int)] = []
        while now < 10, changes.count < 2 {
            now += 0.02
            let slot = Int(now * 10)
            let first = ConnectionGovernorLinkTests.coin(0, slot) < 0.5 ? 2 * 1_048_576 * 0.02 : 0
            var added = 0.0
            if let stepAt {
                for connection in 1..<governor.count where ConnectionGovernorLinkTests.coin(connection, slot) < 0.5 {
                    added += now - stepAt >= 1 ? 2 * 1_048_576 * 0.02 : 0
                }
            }
            bytes += Int64(first + added)
            earlier += Int64(first)
            let change = governor.tick(
                now: now, bytes: bytes, earlier: earlier, streaming: governor.count, remaining: 1 << 40, latency: 0.16)
            if let change {
                changes.append((now, change.count))
                stepAt = now
            }
        }
        #expect(changes.first?.count == 4, "\(changes)")
        #expect(changes.count == 2 && changes[1].count > 4, "undone instead: \(changes)")
    }

    @Test func aSteadyStepThatBringsNothingIsUndoneOnItsLongestWindow() {
        // A shared link: steady, and four connections carry what one did. The window runs to
        // its longest (0.5 s after a ramp of 0.1 s), no further: undone 0.6–1 s after the step,
        // and never tried again within the run (the total did not fall).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var now = 0.0
        var bytes: Int64 = 0
        var changes: [(at: Double, count: Int)] = []
        while now < 4, changes.count < 3 {
            now += 0.02
            bytes += Int64(4 * 1_048_576 * 0.02)
            let earlier = governor.count == 1 ? bytes : bytes / 4
            if let change = governor.tick(now: now, bytes: bytes, earlier: earlier, streaming: governor.count, remaining: 1 << 40, latency: 0.04) {
                changes.append((now, change.count))
            }
        }
        #expect(changes.map(\.count) == [4, 1], "\(changes)")
        #expect(changes.count == 2 && changes[1].at - changes[0].at >= 0.6 && changes[1].at - changes[0].at < 1, "\(changes)")
    }
}

extension ConnectionGovernorNoiseTests {
    @Test func aBurstThatEndsInSilenceWaitsForThePauseNotForAStepOfFour() {
        // A server's first allowance over a slow start: the rate climbs from 2 to 8 MiB/s
        // until 0.42 s, falls to nothing by 0.8 s (the allowance running out), then nothing
        // comes. The first window ends 0.12 s into the silence, neither steady
        // nor a burst and a pause: a step of four taken there would be judged on bursts. It
        // waits; the silence becomes a pause, and the count goes to the cap.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var now = 0.0
        var bytes: Int64 = 0
        var change: ConnectionGovernor.Change?
        while change == nil && now < 2 {
            now += 0.02
            let rate = now < 0.42 ? 2 + 15 * now : max(0, 8 - 21 * (now - 0.42))
            bytes += Int64(rate * 1_048_576 * 0.02)
            change = governor.tick(now: now, bytes: bytes, streaming: 1, remaining: 1 << 30, latency: 0.1)
        }
        #expect(change?.count == 16, "\(String(describing: change)) at \(now) s")
    }
}
