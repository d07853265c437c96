@testable import Fastget
import Foundation
import Testing

/// The automatic count replayed on traces the network lab recorded (`Bench --lab --trace DIR`,
/// one line per coordinator tick: the governor's inputs and the count in force). The governor
/// is a pure function of those lines, so a replay makes the very decisions of the recorded
/// run; each trace then shows the rule doing the right thing on a real link. After a change to
/// the rule, a replay that decides otherwise is no longer valid past that point: record the
/// traces again (see `Traces/README.md`).
@Suite struct GovernorTraceTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Traces")

    static func ticks(_ name: String) throws -> [GovernorTrace.Tick] {
        let text = try String(contentsOf: directory.appendingPathComponent(name + ".trace"), encoding: .utf8)
        return text.split(separator: "\n").compactMap(GovernorTrace.Tick.init)
    }

    /// Replays `ticks`; returns every change, and checks each against the count the recording
    /// had on the next tick (the host cap was never short in these runs). With `until`, a
    /// replay that decides otherwise than the recording after that time ends there: its inputs
    /// no longer follow from its decisions, and that decision is what the test looks at.
    static func replay(_ ticks: [GovernorTrace.Tick], maximum: Int = 16, until: Double = .infinity) -> [(at: Double, count: Int)] {
        var governor = ConnectionGovernor(maximum: maximum, now: 0)
        var changes: [(at: Double, count: Int)] = []
        for tick in ticks {
            if governor.count != tick.count && tick.now > until { break }
            #expect(governor.count == tick.count, "at \(tick.now) s the recording had \(tick.count), the replay \(governor.count)")
            guard governor.count == tick.count else { break }
            if let change = governor.tick(
                now: tick.now, bytes: tick.bytes, earlier: tick.earlier, streaming: tick.streaming, remaining: tick.remaining,
                latency: tick.latency)
            {
                changes.append((tick.now, change.count))
            }
        }
        return changes
    }

    @Test func parsesWhatItWrites() throws {
        let tick = try #require(GovernorTrace.Tick("12345 1048576 524288 4 2097152 40123 4"))
        #expect(tick.now == 1.2345 && tick.bytes == 1_048_576 && tick.earlier == 524_288 && tick.streaming == 4)
        #expect(tick.remaining == 2_097_152 && tick.latency == 0.040123 && tick.count == 4)
        #expect(GovernorTrace.Tick("1 2 3") == nil && GovernorTrace.Tick("a b c d e f g") == nil)
    }

    @Test func aBurstThenACapGrowsToTheHostCap() throws {
        // nginx `limit_rate 1m` over 100 Mbit/s, 40 ms: each connection's first second comes at
        // once, then 1 MiB/s. The silence after the first connection's burst is a pause: the
        // count goes to the cap in one step, within half a second, and stays.
        let changes = Self.replay(try Self.ticks("burst-cap"))
        #expect(changes.first?.count == 16 && (changes.first?.at ?? .infinity) < 0.5, "\(changes)")
        #expect(changes.allSatisfy { $0.count == 16 }, "it went back: \(changes)")
    }

    @Test func aLinkOneConnectionFillsStaysAtOne() throws {
        // 100 Mbit/s, 40 ms, no cap: four connections carry what one did; back to one.
        let changes = Self.replay(try Self.ticks("shared"))
        #expect(changes.first?.count == 4, "\(changes)")
        #expect(changes.last?.count == 1 && changes.allSatisfy { $0.count <= 4 }, "\(changes)")
    }

    @Test func noStepWhileTheFirstAllowanceIsSpent() throws {
        // The same link, recorded by the rule before: the first connection's last two looks
        // agreed at 0.294 s, 63 ms after its first second's allowance ran out, and it took four.
        // The pause that followed went unseen (the four never fell silent together), so 8 and
        // 16 were judged on new requests' first allowances, 16 looked no better than 8 twice,
        // and the run ended at 8 (7.24 s against 6.3). Silent for half a look is too long for a
        // connection with a rate: no step is taken there (the replay ends where the recording
        // took it; a pause follows as in `burst-cap.trace`).
        let changes = Self.replay(try Self.ticks("burst-cap-early"), until: 0.2)
        #expect(changes.isEmpty, "\(changes)")
    }

    @Test func aSmoothCapPerConnectionGrowsUntilTheLinkIsFull() throws {
        // 8 Mbit/s per connection (kernel pacing) on 100 Mbit/s: 12 would fill it. The first
        // connection's rate holds from its first looks: four by 0.3 s; the four carry four
        // times one from their first bytes, so sixteen come a look after they deliver, by 0.6 s.
        let changes = Self.replay(try Self.ticks("wan"))
        #expect(changes.prefix(2).map(\.count) == [4, 16] && changes.allSatisfy { $0.count <= 16 }, "\(changes)")
        #expect(changes.count >= 2 && changes[0].at < 0.3 && changes[1].at < 0.6, "\(changes)")
        #expect(changes.last?.count == 16, "\(changes)")
    }

    @Test func aStepJudgedAgainstASlowStartIsTriedAgain() throws {
        // 1 Gbit/s, 10 ms, 0.1% loss: 8 were judged against four connections still in their
        // slow start's overshoot and undone; the same step is tried again a longest window
        // later, against the four's settled rate, stays, and is followed by 16.
        let changes = Self.replay(try Self.ticks("fast-lossy"))
        #expect(changes.prefix(3).map(\.count) == [4, 8, 4], "\(changes)")
        let again = try #require(changes.dropFirst(3).first, "\(changes)")
        #expect(again.count == 8 && again.at - changes[2].at < 1, "\(changes)")
        #expect(changes.last?.count == 16, "\(changes)")
    }

    @Test func aTokenBucketSpentAfterAStepGoesToTheCapAtOnce() throws {
        // nginx `limit_rate_after 4m; limit_rate 1m` over 100 Mbit/s, 40 ms: each request's first
        // 4 MiB come at the link's rate. Four connections carried what one did, but the first
        // one had spent its bucket: silent most of the window, with one release of its 1 MiB a
        // second (8% of its rate before). The server holds each back, so the count goes to the
        // cap when the step is judged, at 1.18 s (the rule before went back to one there, and
        // reached 16 after the one left had been silent for 200 ms, 0.5-1.5 s later), and stays.
        let changes = Self.replay(try Self.ticks("bucket"))
        #expect(changes.prefix(2).map(\.count) == [4, 16], "\(changes)")
        #expect(changes.count >= 2 && changes[1].at < 1.25, "\(changes)")
        #expect(changes.dropFirst().allSatisfy { $0.count == 16 }, "\(changes)")
    }

    @Test func anEarlierCountThatWentDownIsNoHoldBack() throws {
        // The same trace, but the earlier connections' count goes down within the window, as
        // when a worker that ended takes its bytes with it: what they carried is unknown, and
        // the step is undone as before the rule (the replay ends where the recording did not).
        let ticks = try Self.ticks("bucket").map { tick in
            guard tick.now > 0.9, tick.now < 1.18 else { return tick }
            return GovernorTrace.Tick(
                now: tick.now, bytes: tick.bytes, earlier: tick.earlier - 1_048_576, streaming: tick.streaming,
                remaining: tick.remaining, latency: tick.latency, count: tick.count)
        }
        let changes = Self.replay(ticks, until: 0.5)
        #expect(changes.map(\.count) == [4, 1], "\(changes)")
    }
}
