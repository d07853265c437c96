/// Chooses how many connections a download with an automatic count uses, from the throughput
/// the coordinator measures: one to start; more while each added connection raises the total
/// by a meaningful share of what a connection carried before; the last step taken back when it
/// did not help. Growth is multiplicative while added connections carry about as much as the
/// ones before (a per-connection cap: 16 help as much as 4), additive while they help a little,
/// and the count then settles, trying one more now and then (AIMD: the increase probes, a step
/// that does not pay is undone at once).
///
/// Pure logic: the coordinator feeds it the clock and byte counts and applies its changes.
struct ConnectionGovernor {
    /// A new count and why, for `--verbose` and `--json`.
    struct Change: Equatable, Sendable {
        let count: Int
        let reason: String
    }

    /// The most connections: the session's per-host cap, lowered when an added connection fails.
    private(set) var maximum: Int
    /// The count now.
    private(set) var count: Int
    /// The count and throughput before the last step up (nil before the first measurement).
    private var before: (count: Int, rate: Double)?
    /// When the current count took effect, and when its measurement began (once every
    /// connection delivers), with the bytes by then, all and the earlier connections'.
    private(set) var changedAt: Double
    private var window: (start: Double, bytes: Int64, earlier: Int64)?
    /// Settled: no step pending; the rate then, and when the count was last tried higher.
    private var settled: (rate: Double, at: Double)?
    /// The last rate measured.
    private var lastRate = 0.0

    /// Seconds a measurement lasts, at least…
    static let window = 0.15
    /// …and until this many bytes came in, or `longestWindow` passed.
    static let windowBytes: Int64 = 128 * 1024
    static let longestWindow = 1.0
    /// Seconds after a change within which every connection should deliver; past it, the
    /// measurement starts anyway (a connection with nothing to take delivers nothing).
    static let startupLimit = 1.0
    /// A settled count tries one more connection this often.
    static let reprobeInterval = 4.0
    /// Shares of an existing connection's throughput that each added one must bring: for
    /// growing ×4, ×2, +1; below the last, the step is undone.
    static let linearShare = 0.75
    static let goodShare = 0.4
    static let meaningfulShare = 0.1

    init(maximum: Int, initial: Int = 1, now: Double) {
        precondition(maximum >= 1 && initial >= 1)
        self.maximum = maximum
        count = min(initial, maximum)
        changedAt = now
    }

    /// Whether a measurement is pending (not settled): the coordinator then ticks more often.
    var isMeasuring: Bool { settled == nil }

    /// Called on every coordinator tick.
    /// - Parameters:
    ///   - bytes: all bytes written so far.
    ///   - earlier: bytes written so far by the connections started before `changedAt` (those
    ///     the last step added to): in the same window as the total, they show what those
    ///     connections carry now, when the measurement before the step was short of it.
    ///   - streaming: how many connections have delivered body bytes since the count changed.
    ///   - remaining: bytes still to fetch.
    ///   - latency: seconds a request takes to be answered (a new connection's setup included).
    /// - Returns: the new count and why, when it changes.
    mutating func tick(
        now: Double, bytes: Int64, earlier: Int64 = 0, streaming: Int, remaining: Int64, latency: Double
    ) -> Change? {
        if let settled {
            guard count < maximum, now - settled.at >= ConnectionGovernor.reprobeInterval else { return nil }
            guard worthGrowing(rate: settled.rate, remaining: remaining, latency: latency) else { return nil }
            return step(to: count + 1, rate: settled.rate, now: now, reason: "trying one more connection")
        }
        guard let window else {
            if streaming >= count || now - changedAt >= ConnectionGovernor.startupLimit {
                self.window = (now, bytes, earlier)
            }
            return nil
        }
        let seconds = now - window.start
        let received = bytes - window.bytes
        guard seconds >= ConnectionGovernor.window,
            received >= ConnectionGovernor.windowBytes || seconds >= ConnectionGovernor.longestWindow
        else { return nil }
        let rate = Double(received) / seconds
        lastRate = rate
        let earlierRate = Double(earlier - window.earlier) / seconds
        return judge(rate: rate, earlierRate: earlierRate, now: now, remaining: remaining, latency: latency)
    }

    /// The step after a measurement of `rate` at `count` connections, of which those there
    /// before the step carried `earlierRate`.
    private mutating func judge(rate: Double, earlierRate: Double, now: Double, remaining: Int64, latency: Double) -> Change? {
        guard let before else {
            guard count < maximum, worthGrowing(rate: rate, remaining: remaining, latency: latency) else {
                return settle(rate: rate, now: now)
            }
            return step(to: count * 4, rate: rate, now: now, reason: "measuring whether more connections help")
        }
        let added = count - before.count
        // What the earlier connections carry is the larger of their rate before the step and
        // their rate now: a measurement before that caught a stall (the disk, the scheduler)
        // is short, and added connections that bring nothing would seem to help; on a shared
        // bottleneck they slow down now, and the rate before counts.
        let baseline = max(before.rate, earlierRate)
        let perConnection = baseline / Double(before.count)
        let share = perConnection > 0 && added > 0 ? (rate - baseline) / Double(added) / perConnection : 0
        let percent = Int((share * 100).rounded())
        if share < ConnectionGovernor.meaningfulShare {
            let undone = count
            count = before.count
            self.before = nil
            settled = (before.rate, now)
            return Change(count: count, reason: "\(undone - count) more gave \(percent)% of a connection's throughput each; back to \(count)")
        }
        guard count < maximum, worthGrowing(rate: rate, remaining: remaining, latency: latency) else {
            let reason = count == maximum ? "at the cap of \(maximum)" : "too little left to need more"
            _ = settle(rate: rate, now: now)
            return Change(count: count, reason: "\(added) more gave \(percent)% each; \(reason)")
        }
        let target =
            share >= ConnectionGovernor.linearShare ? count * 4 : share >= ConnectionGovernor.goodShare ? count * 2 : count + 1
        return step(to: target, rate: rate, now: now, reason: "\(added) more gave \(percent)% of a connection's throughput each")
    }

    /// Whether more connections can pay for their setup: the rest would take at least a few
    /// request latencies and measurement windows at the current rate.
    private func worthGrowing(rate: Double, remaining: Int64, latency: Double) -> Bool {
        guard rate > 0 else { return false }
        return Double(remaining) / rate >= 4 * latency + 2 * ConnectionGovernor.window
    }

    private mutating func step(to target: Int, rate: Double, now: Double, reason: String) -> Change? {
        let next = min(maximum, target)
        guard next > count else { return settle(rate: rate, now: now) }
        before = (count, rate)
        settled = nil
        count = next
        changedAt = now
        window = nil
        return Change(count: next, reason: reason)
    }

    private mutating func settle(rate: Double, now: Double) -> Change? {
        settled = (rate, now)
        before = nil
        window = nil
        return nil
    }

    /// The coordinator could open only `granted` of the connections the last step asked for
    /// (the session's per-host cap): the count is what it has, settled there; it asks again
    /// at the next try (other downloads may have given connections back by then).
    mutating func limited(to granted: Int, now: Double) {
        count = granted
        before = nil
        window = nil
        settled = (lastRate, now)
    }

    /// An added connection failed (a server limiting connections per client refuses or
    /// resets the extra ones): the count never goes beyond what is left.
    mutating func lowerMaximum(to count: Int, now: Double) {
        maximum = max(1, min(maximum, count))
        limited(to: min(self.count, maximum), now: now)
    }
}
