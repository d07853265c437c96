@testable import Fastget
import Testing

/// The automatic connection count on modelled links: connections that come and go with the
/// count, each delivering bytes tick by tick as a bursty server, a lossy path or a shared link
/// would let it. A generator with a fixed seed keeps every run the same.
@Suite struct ConnectionGovernorLinkTests {
    /// A link model: the bytes each connection delivers in the tick ending at `now`.
    typealias Link = (_ connection: Int, _ started: Double, _ now: Double, _ tick: Double, _ alive: Int, _ random: inout Random) -> Double

    struct Random {
        var state: UInt64
        /// Uniform in [0, 1).
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    struct Outcome {
        var counts: [(at: Double, count: Int)] = []
        var final: Int { counts.last?.count ?? 1 }
        /// The first time the count reached `count`.
        func reached(_ count: Int) -> Double? { counts.first { $0.count >= count }?.at }
    }

    /// Runs `governor` for `seconds` against `link`; new connections deliver after `latency`.
    func simulate(_ governor: inout ConnectionGovernor, seconds: Double, latency: Double = 0.04, link: Link) -> Outcome {
        var random = Random(state: 42)
        var started: [Double] = [0] // per connection, oldest first
        var bytes: [Double] = [0]
        var retired = 0.0 // bytes of connections that ended: the total never goes down
        var outcome = Outcome()
        let tick = 0.02
        var now = 0.0
        while now < seconds {
            now += tick
            for index in started.indices where now - started[index] >= latency {
                bytes[index] += link(index, started[index], now, tick, started.count, &random)
            }
            let total = Int64(retired + bytes.reduce(0, +))
            let earlier = Int64(zip(started, bytes).filter { $0.0 < governor.changedAt }.map(\.1).reduce(0, +))
            let streaming = started.indices.filter { bytes[$0] > 0 }.count
            guard let change = governor.tick(now: now, bytes: total, earlier: earlier, streaming: streaming, remaining: 1 << 40, latency: latency)
            else { continue }
            outcome.counts.append((now, change.count))
            while started.count < change.count {
                started.append(now)
                bytes.append(0)
            }
            while started.count > change.count {
                started.removeLast()
                retired += bytes.removeLast()
            }
        }
        return outcome
    }

    static let mebibyte = 1_048_576.0

    /// nginx `limit_rate`: a request's allowance is released at whole seconds of the server's
    /// clock (its first second's at once), so each connection sends a second's worth in a
    /// burst and is silent the rest of the second.
    static func limitRate(_ rate: Double, firstAfter: Double = 0.04) -> Link {
        { _, started, now, tick, _, _ in
            let previous = now - tick
            var delivered = 0.0
            if previous < started + firstAfter, now >= started + firstAfter { delivered += rate } // the first second's allowance
            if previous.rounded(.down) != now.rounded(.down) { delivered += rate }
            return delivered
        }
    }

    @Test func aPerSecondAllowanceGrowsToTheCapWithinASecond() {
        // The first pause says the server holds each connection back: straight to the cap,
        // in one step (×4 and another whole-second judgment cost a second at a quarter).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let outcome = simulate(&governor, seconds: 6, latency: 0.001, link: Self.limitRate(2 * Self.mebibyte))
        #expect(outcome.final == 16, "\(outcome.counts)")
        #expect(outcome.counts.first?.count == 16, "\(outcome.counts)")
        #expect((outcome.reached(16) ?? .infinity) < 0.5, "\(outcome.counts)")
    }

    @Test func aFirstAllowanceInBeforeTheFirstLookStillCounts() {
        // On loopback the first second's allowance is in before the coordinator's first look,
        // and then nothing comes until the next second: the pause still grows the count.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let outcome = simulate(&governor, seconds: 3, latency: 0.0002, link: Self.limitRate(2 * Self.mebibyte, firstAfter: 0.0002))
        #expect((outcome.reached(4) ?? .infinity) < 0.5, "\(outcome.counts)")
    }

    /// A lossy path: each connection's rate is its own and noisy, the sum grows with the count
    /// up to the link. A connection sends at twice its mean for a while, then waits out a
    /// timeout: on or off in each `period` of its life, at random, with no memory.
    static func lossy(perConnection: Double, link: Double, period: Double = 0.3) -> Link {
        { connection, started, now, tick, alive, _ in
            let share = min(perConnection, link / Double(alive))
            return coin(connection, Int((now - started) / period)) < 0.5 ? 2 * share * tick : 0
        }
    }

    /// A number in [0, 1) fixed by its two arguments.
    static func coin(_ a: Int, _ b: Int) -> Double {
        var x = UInt64(truncatingIfNeeded: a) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: b) &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 29
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 32
        return Double(x >> 11) / Double(1 << 53)
    }

    @Test func aLossyPathGrowsToTheCapAndStaysThere() {
        // 100 Mbit/s, each connection about 3 Mbit/s: 32 would fill it.
        var governor = ConnectionGovernor(maximum: 32, now: 0)
        let outcome = simulate(
            &governor, seconds: 20, latency: 0.16, link: Self.lossy(perConnection: 0.375 * Self.mebibyte, link: 12.5 * Self.mebibyte))
        #expect(outcome.final == 32, "\(outcome.counts)")
        #expect((outcome.reached(32) ?? .infinity) < 8, "\(outcome.counts)")
        #expect(outcome.counts.filter { $0.count < 32 }.count <= 3, "it went back: \(outcome.counts)")
    }

    /// A link that is the limit: its queue keeps it busy, so the total stays within a tenth of
    /// its rate whatever the count; the connections share it.
    static func shared(_ link: Double) -> Link {
        { _, _, _, tick, alive, random in link / Double(alive) * tick * (0.9 + 0.2 * random.next()) }
    }

    @Test func aSharedLinkStaysLowThroughNoise() {
        // One connection fills the link; more only share it.
        var governor = ConnectionGovernor(maximum: 32, now: 0)
        let outcome = simulate(&governor, seconds: 20, latency: 0.08, link: Self.shared(12.5 * Self.mebibyte))
        #expect(outcome.final == 1, "\(outcome.counts)")
        #expect(outcome.counts.allSatisfy { $0.count <= 4 }, "\(outcome.counts)")
    }

    @Test func aSharedLinkThatStallsNowAndThenStaysLow() {
        // The link is the limit, and every 5 s everything stops for 0.4 s (a slow disk, a
        // hiccup): a pause of a busy download says nothing about the server.
        var governor = ConnectionGovernor(maximum: 64, now: 0)
        let link = Self.shared(12.5 * Self.mebibyte)
        let outcome = simulate(&governor, seconds: 30, latency: 0.04) { connection, started, now, tick, alive, random in
            let phase = now.truncatingRemainder(dividingBy: 5)
            return phase >= 2 && phase < 2.4 ? 0 : link(connection, started, now, tick, alive, &random)
        }
        #expect(outcome.final <= 2, "\(outcome.counts)")
        #expect(outcome.counts.allSatisfy { $0.count <= 4 }, "\(outcome.counts)")
    }

    @Test func aSharedLinkWhoseFirstConnectionStallsStaysLow() {
        // The link is the limit, and the first connection stalls for 0.3 s of every second
        // once others share it (retransmission timeouts): the others take its share meanwhile,
        // which is no sign of a server holding it back.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let link = Self.shared(12.5 * Self.mebibyte)
        let outcome = simulate(&governor, seconds: 20, latency: 0.08) { connection, started, now, tick, alive, random in
            let stall = alive > 1 && now.truncatingRemainder(dividingBy: 1) < 0.3
            if stall && connection == 0 { return 0 }
            return link(connection, started, now, tick, stall ? alive - 1 : alive, &random)
        }
        #expect(outcome.final <= 4, "\(outcome.counts)")
        #expect(!outcome.counts.contains { $0.count == 16 }, "\(outcome.counts)")
    }

    @Test func aSlowSharedLinkDeliveringInLumpsStaysLow() {
        // 10 Mbit/s that one connection fills; each connection's share comes in lumps every
        // 60 ms (a TLS record at a time), so most ticks of the first one carry nothing once
        // others share the link. Short gaps are how a slow connection delivers, no sign of a
        // server holding it back.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        var owed: [Int: Double] = [:]
        let outcome = simulate(&governor, seconds: 30, latency: 0.08) { connection, _, now, tick, alive, _ in
            owed[connection, default: 0] += 1_250_000 / Double(alive) * tick
            guard Int((now / tick).rounded()) % 3 == connection % 3 else { return 0 }
            defer { owed[connection] = 0 }
            return owed[connection, default: 0]
        }
        #expect(outcome.final <= 4, "\(outcome.counts)")
        #expect(!outcome.counts.contains { $0.count == 16 }, "\(outcome.counts)")
    }

    @Test func aSettledCountTriesAQuarterMore() {
        // Each connection capped at 1 MiB/s on a 16 MiB/s link: 16 is right; a try above it
        // adds a quarter (4), not as many again.
        var governor = ConnectionGovernor(maximum: 64, now: 0)
        let outcome = simulate(&governor, seconds: 30, latency: 0.01) { _, _, _, tick, alive, _ in
            min(Self.mebibyte, 16 * Self.mebibyte / Double(alive)) * tick
        }
        // Settled at 16 once ×4 to 64 was undone; 64 is tried once more (its baseline came
        // from connections just added), and every later try is 20.
        #expect(outcome.counts.filter { $0.count == 64 }.count == 2, "\(outcome.counts)")
        let tries = outcome.counts.filter { $0.at > 4 && $0.count > 16 }
        #expect(!tries.isEmpty && tries.allSatisfy { $0.count == 20 }, "\(outcome.counts)")
    }
}

extension ConnectionGovernorLinkTests {
    @Test func aStepUndoneAgainstASlowStartsOvershootIsTriedAgainSoon() {
        // 1 Gbit/s (120 MiB/s) with loss: a connection carries 30 MiB/s in its first 0.4 s (its
        // slow start, before the first losses) and 6 MiB/s after. A step judged against
        // connections in that overshoot looks useless and is undone; it is tried again a
        // longest window later, against their settled rate, and the count is back at 16
        // within a second.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let outcome = simulate(&governor, seconds: 8, latency: 0.02) { _, started, now, tick, alive, _ in
            let own = (now - started < 0.4 ? 30 : 6) * Self.mebibyte
            return min(own, 120 * Self.mebibyte / Double(alive)) * tick
        }
        #expect(outcome.final == 16, "\(outcome.counts)")
        let first16 = outcome.reached(16) ?? .infinity
        var below = 0.0
        for (index, change) in outcome.counts.enumerated() where change.at > first16 && change.count < 16 {
            below += (index + 1 < outcome.counts.count ? outcome.counts[index + 1].at : 8) - change.at
        }
        #expect(below < 1, "below 16 for \(below) s after reaching it: \(outcome.counts)")
    }
}

/// Links where the undo's check and the pause must not take the count up.
@Suite struct ConnectionGovernorRegrowthTests {
    /// Runs `governor` on a link of `link` bytes/s that is the limit: a connection above its
    /// share drops to it at once, one below it grows by `regrowth` bytes/s each second (a
    /// congestion window that must regrow into the room others left); a new connection starts
    /// at its share (a slow start is quick beside that). Every connection stops during
    /// `stalled(now)`.
    static func shared(
        _ governor: inout ConnectionGovernor, seconds: Double, link: Double, regrowth: Double, stalled: (Double) -> Bool = { _ in false }
    ) -> [(at: Double, count: Int)] {
        var rates: [Double] = [link]
        var started: [Double] = [0]
        var bytes = 0.0
        var changes: [(at: Double, count: Int)] = []
        var now = 0.0
        var earlierBytes = 0.0
        while now < seconds {
            now += 0.02
            let share = link / Double(rates.count)
            for index in rates.indices { rates[index] = min(share, rates[index] + regrowth * 0.02) }
            if !stalled(now) {
                bytes += rates.reduce(0, +) * 0.02
                earlierBytes += zip(rates, started).filter { $0.1 < governor.changedAt }.map(\.0).reduce(0, +) * 0.02
            }
            guard
                let change = governor.tick(
                    now: now, bytes: Int64(bytes), earlier: Int64(earlierBytes), streaming: governor.count, remaining: 1 << 40,
                    latency: 0.04)
            else { continue }
            changes.append((now, change.count))
            while rates.count < change.count {
                rates.append(link / Double(change.count))
                started.append(now)
            }
            if rates.count > change.count {
                rates.removeLast(rates.count - change.count)
                started.removeLast(started.count - change.count)
            }
        }
        return changes
    }

    @Test func survivorsThatRegrowSlowlyDoNotTakeTheCountBackUp() {
        // One connection fills the link; after going back to one, it needs four seconds to fill
        // it again. That is no reason to go back up: the count stays low.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let changes = Self.shared(&governor, seconds: 30, link: 12_500_000, regrowth: 3_125_000)
        #expect((changes.last?.count ?? 1) <= 2, "\(changes)")
        #expect(changes.allSatisfy { $0.count <= 4 }, "\(changes)")
    }

    @Test func shortStallsOnALinkThatIsTheLimitKeepTheCountLow() {
        // Everything stops for 0.12 s every 0.7 s (a slow disk's writeback): never a reason for
        // more connections. Known: a stall inside the window before a try makes the try look
        // like a gain, and the count climbs (the rule before this one did the same).
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let changes = Self.shared(&governor, seconds: 30, link: 12_500_000, regrowth: 25_000_000) {
            $0.truncatingRemainder(dividingBy: 0.7) < 0.12
        }
        withKnownIssue("a stall in a try's baseline window passes for a gain") {
            #expect((changes.last?.count ?? 1) <= 2, "\(changes)")
            #expect(changes.allSatisfy { $0.count <= 4 }, "\(changes)")
        }
    }

    @Test func aStallJustAfterAStepIsNoPause() {
        // Everything stops for 0.3 s every 2 s; a try of more connections just before a stall
        // must not read it as a server holding each connection back.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let changes = Self.shared(&governor, seconds: 30, link: 12_500_000, regrowth: 25_000_000) {
            $0.truncatingRemainder(dividingBy: 2) >= 1.7
        }
        #expect((changes.last?.count ?? 1) <= 4, "\(changes)")
        #expect(!changes.contains { $0.count == 16 }, "\(changes)")
    }
}

extension ConnectionGovernorLinkTests {
    @Test func aSpentTokenBucketIsNoReasonToWaitForTheNextTry() {
        // nginx `limit_rate_after 4m; limit_rate 1m` on a 12.5 MiB/s link: each request's first
        // 4 MiB come at the link's rate, so four connections look no better than one, and the
        // step is undone; then every connection is held to 1 MiB a second. The pauses that
        // follow are not left to the next try, 4 s later: the rate the undo was judged at has
        // fallen by more than half, and the count goes to the cap.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let outcome = simulate(&governor, seconds: 8, latency: 0.08) { _, started, now, tick, alive, _ in
            let share = 12.5 * Self.mebibyte / Double(alive)
            if now - started < 4 * Self.mebibyte / share { return share * tick }
            return (now - tick).rounded(.down) != now.rounded(.down) ? Self.mebibyte : 0
        }
        #expect(outcome.final == 16, "\(outcome.counts)")
        #expect((outcome.reached(16) ?? .infinity) < 3, "\(outcome.counts)")
    }
}

extension ConnectionGovernorLinkTests {
    @Test func anUndoThatLeavesFarLessThanItWasJudgedAgainstIsTriedAgainSoon() {
        // A lossy path where each connection holds 0.35 MiB/s once its slow start is over; the
        // first one carried 1.5 MiB/s before (its overshoot), and that was the baseline four
        // were judged against: 4 × 0.35 is no gain, and the step is undone. The one left then
        // carries a quarter of that baseline and does not grow: the verdict was stale, and
        // the step should be tried again within about a second, not at the next try 4 s later.
        // Known: it waits for that try (the lab's `lossy` showed one run in about ten at one
        // connection for 4 s, 15.8 s against 9–10). Trying again at once when the connections
        // left carry under half the baseline and do not grow was measured and not kept: on
        // `lossy` and `fast-lossy` it was slower in the median in both orders of the cells.
        var governor = ConnectionGovernor(maximum: 16, now: 0)
        let outcome = simulate(&governor, seconds: 10, latency: 0.08) { connection, started, now, tick, _, _ in
            (connection == 0 && now - started < 0.6 ? 1.5 : 0.35) * Self.mebibyte * tick
        }
        let undo = outcome.counts.firstIndex { $0.count == 1 }
        #expect(undo != nil, "\(outcome.counts)")
        if let undo {
            let next = outcome.counts.dropFirst(undo + 1).first
            withKnownIssue("an undo against a slow start's overshoot waits for the next try") {
                #expect(next.map { $0.at - outcome.counts[undo].at < 1.6 && $0.count > 1 } == true, "\(outcome.counts)")
            }
        }
        #expect(outcome.final == 16, "\(outcome.counts)")
    }
}
