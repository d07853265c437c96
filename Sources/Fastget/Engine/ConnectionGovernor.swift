/// Chooses how many connections a download with an automatic count uses, from the throughput
/// the coordinator measures.
///
/// What is measured: the bytes of all connections, and of those there before the last step,
/// over a `ThroughputWindow`. A window starts once every connection delivers and a ramp of two
/// request latencies has passed (a new connection's slow start). The first connection is
/// looked at every shortest window until its rate stops growing; when its last two looks agree
/// within a tenth (a rate held by a cap), they are the first measurement, and the first step is
/// taken at once.
/// Any other window ends when its two halves agree within a
/// quarter, after at least 0.15 s and two request latencies, or at its longest: 0.5 s and four
/// request latencies (about eight round trips), whole seconds once the server was seen to send
/// in bursts. Windows follow each other without a gap, so every judgment is against the rate
/// just before it, never against one from a burst or a slow start long gone.
///
/// The rule: one connection to start, then ×4. A step is judged by what each added connection
/// brought, against a per-connection baseline from just before it (the larger of that rate and
/// what the earlier connections carry in the window after it: on a shared link they slow down).
/// The gain must also beat the windows' own noise. A step that brought three quarters of a
/// connection each is followed by ×4, any other that helped by ×2; one that brought less than a
/// tenth each, or nothing beyond the noise, is undone, and the count settles. When that step's
/// baseline came from connections the step before had just added (their slow start's overshoot,
/// which a lossy path does not sustain, may have been in it), the same step is tried once more
/// after four longest windows, against their settled rate. A settled count tries a quarter
/// more (at least one) after `reprobeInterval`, doubling the wait after each try that did not
/// pay, up to `longestReprobeInterval`. It stops growing at the per-host cap, or when what is
/// left would be done before more connections could be judged.
///
/// Why a burst or loss noise cannot fool it: a server that lets each connection's allowance
/// out once a second (nginx `limit_rate`) makes every connection silent together; from then on
/// windows last whole seconds, which hold as many releases as seconds whatever their phase, and
/// a window half of which carried nothing is never judged. When the connections were idle at
/// least half the time, the link cannot be the limit, so the count grows ×4 at once. A lossy
/// path's sawtooth and timeouts make halves disagree, so its windows run to their longest, and
/// a gain within their spread does not count.
///
/// Pure logic: the coordinator feeds it the clock and byte counts and applies its changes;
/// `GovernorTrace` records those inputs, and the tests replay them.
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
    /// When the current count took effect.
    private(set) var changedAt: Double
    /// When every connection of the current count first delivered (nil: not yet).
    private var deliveringSince: Double?
    /// The measurement under way (nil during the ramp).
    private var window: ThroughputWindow?
    /// The count and throughput before a step being judged.
    private var before: (count: Int, rate: Double, spread: Double)?
    /// Settled: when to try more connections next.
    private var nextProbe: Double?
    private var probeInterval = ConnectionGovernor.reprobeInterval
    /// A step undone against a baseline from freshly added connections, tried again once.
    private var retry: Int?
    /// Whether the step being judged was taken on the first window after a growth step.
    private var freshBaseline = false
    /// The bytes at the last tick, and since when they have not moved.
    private var quiet: (bytes: Int64, since: Double) = (0, 0)
    /// The previous tick, the seconds since `deliveringSince` in which no byte came, and the
    /// bytes by `changedAt` (a server's first burst may be in before every connection delivers).
    private var lastTick: (time: Double, bytes: Int64)?
    private var idle = 0.0
    private var bytesAtChange: Int64 = 0
    /// Every connection was once silent together, or half a window carried nothing: the server
    /// sends in bursts, and a short window that looks steady may be one burst. Measurements
    /// last whole seconds from then on.
    private var bursty = false
    /// A window whose halves differ by this share of the faster is one burst and a pause.
    static let burstSpread = 0.95
    /// The first connection's last three looks while in slow start.
    private var looks: [(time: Double, bytes: Int64)] = []

    /// A measurement lasts at least this many seconds (and two request latencies)…
    static let shortestWindow = 0.15
    /// …and at most this many seconds (and four request latencies).
    static let longestWindow = 0.5
    /// Seconds after every connection delivers before a measurement starts, at least.
    static let ramp = 0.1
    /// Seconds every connection must have been silent, at least (and four request latencies),
    /// for a pause: a link that is the limit is never idle while connections wait on it, so a
    /// pause means something holds each connection back (a server's per-connection rate, a
    /// lossy path's timeouts), and more connections cannot slow the others down.
    static let pause = 0.3
    /// Seconds after a change within which every connection should deliver; past it, the
    /// measurement starts anyway (a connection with nothing to take delivers nothing).
    static let startupLimit = 1.0
    /// Seconds from the start after which slow start is taken to be over.
    static let slowStartLimit = 2.0
    /// A settled count tries more connections after this many seconds, then after twice as
    /// many each time a try did not pay, up to the longest.
    static let reprobeInterval = 4.0
    static let longestReprobeInterval = 32.0
    /// Longest windows after an undo before the same step is tried again (see `retry`).
    static let settling = 4.0
    /// How far the first connection's last two looks may differ (a share of the faster) to
    /// count as its settled rate.
    static let flat = 0.1
    /// Shares of an existing connection's throughput that each added one must bring: for
    /// growing ×4; below the second, the step is undone.
    static let linearShare = 0.75
    static let meaningfulShare = 0.1

    init(maximum: Int, initial: Int = 1, now: Double) {
        precondition(maximum >= 1 && initial >= 1)
        self.maximum = maximum
        count = min(initial, maximum)
        changedAt = now
    }

    /// Whether the coordinator should tick often: while a step is judged or before the first.
    var isMeasuring: Bool { nextProbe == nil }

    /// Seconds of the ramp, the shortest and the longest measurement, for a request latency.
    /// A bursty server's measurements last whole seconds (its allowance comes each second).
    static func timing(latency: Double, bursty: Bool = false) -> (ramp: Double, shortest: Double, longest: Double) {
        let longest = max(longestWindow, 4 * latency)
        return (max(ramp, 2 * latency), max(shortestWindow, 2 * latency), bursty ? max(1, longest.rounded(.up)) : longest)
    }

    /// Called on every coordinator tick.
    /// - Parameters:
    ///   - bytes: all bytes written so far.
    ///   - earlier: bytes written so far by the connections started before `changedAt` (those
    ///     the last step added to).
    ///   - streaming: how many connections have delivered body bytes since the count changed.
    ///   - remaining: bytes still to fetch.
    ///   - latency: seconds a request takes to be answered (a new connection's setup included).
    /// - Returns: the new count and why, when it changes.
    mutating func tick(
        now: Double, bytes: Int64, earlier: Int64 = 0, streaming: Int, remaining: Int64, latency: Double
    ) -> Change? {
        let timing = ConnectionGovernor.timing(latency: latency, bursty: bursty)
        if bytes != quiet.bytes { quiet = (bytes, now) }
        if let last = lastTick, bytes == last.bytes { idle += now - last.time }
        lastTick = (now, bytes)
        if deliveringSince == nil {
            guard streaming >= count || now - changedAt >= ConnectionGovernor.startupLimit else { return nil }
            deliveringSince = now
            quiet = (bytes, now)
            idle = 0
        }
        if now - quiet.since >= max(ConnectionGovernor.pause, 4 * latency),
            let change = paused(now: now, bytes: bytes, remaining: remaining, latency: latency)
        {
            return change
        }
        guard var window else {
            guard now - deliveringSince! >= timing.ramp else { return nil }
            switch slowStart(now: now, bytes: bytes, step: timing.shortest) {
            case .growing:
                return nil
            case .over:
                self.window = ThroughputWindow(now: now, bytes: bytes, earlier: earlier)
                return nil
            case .steady(let rates):
                // Its last two looks agree: they are the first measurement, taken at once.
                self.window = ThroughputWindow(now: now, bytes: bytes, earlier: earlier)
                return measured(rates, now: now, remaining: remaining, latency: latency)
            }
        }
        let shortest = bursty ? timing.longest : timing.shortest
        guard let rates = window.add(now: now, bytes: bytes, earlier: earlier, shortest: shortest, longest: timing.longest) else {
            self.window = window
            return nil
        }
        // The next measurement starts at once: a settled count's rate stays current.
        self.window = ThroughputWindow(now: now, bytes: bytes, earlier: earlier)
        return measured(rates, now: now, remaining: remaining, latency: latency)
    }

    /// What a finished measurement leads to: a judgment of the step before it, a try of a
    /// settled count, or the first step.
    private mutating func measured(_ rates: ThroughputWindow.Rates, now: Double, remaining: Int64, latency: Double) -> Change? {
        if rates.spread >= ConnectionGovernor.burstSpread, !bursty {
            // Half the window carried (almost) nothing: a burst and a pause, not a rate. From
            // now on, whole seconds; this window is not judged.
            bursty = true
            return nil
        }
        if let before { return judge(rates, before: before, now: now, remaining: remaining, latency: latency) }
        if let nextProbe {
            guard now >= nextProbe, count < maximum, worthGrowing(rate: rates.all, remaining: remaining, latency: latency) else {
                return nil
            }
            if let retry { return step(to: retry, rates: rates, now: now, reason: "trying \(retry) again, against a settled rate") }
            return step(to: count + max(1, count / 4), rates: rates, now: now, reason: "trying more connections")
        }
        guard count < maximum, worthGrowing(rate: rates.all, remaining: remaining, latency: latency) else {
            settle(now: now)
            return nil
        }
        return step(to: count * 4, rates: rates, now: now, reason: "measuring whether more connections help")
    }

    /// The step after a measurement at `count` connections, taken up from `before`.
    private mutating func judge(
        _ rates: ThroughputWindow.Rates, before: (count: Int, rate: Double, spread: Double), now: Double, remaining: Int64,
        latency: Double
    ) -> Change? {
        let added = count - before.count
        let baseline = max(before.rate, rates.earlier)
        let perConnection = baseline / Double(before.count)
        let share = perConnection > 0 && added > 0 ? (rates.all - baseline) / Double(added) / perConnection : 0
        // A gain counts only beyond the measurements' own noise (half their halves' spread): on
        // a shared link a noisy window must not pass for a connection's worth.
        let noise = max(before.spread * before.rate, rates.spread * rates.all) / 2
        let significant = rates.all - baseline > noise
        let percent = Int((share * 100).rounded())
        if share < ConnectionGovernor.meaningfulShare || !significant {
            let undone = count
            count = before.count
            changedAt = now
            bytesAtChange = lastTick?.bytes ?? 0
            deliveringSince = nil // the connections left deliver already: the next tick starts anew
            window = nil
            settle(now: now)
            if freshBaseline, retry == nil {
                // The baseline came from connections a step had just added: their rate then may
                // still have held their slow start's overshoot, which a lossy path does not
                // sustain, so the step looked worse than it is. Once they have settled, the
                // same step is tried once more, against their settled rate.
                retry = undone
                nextProbe = now + ConnectionGovernor.settling * ConnectionGovernor.timing(latency: latency, bursty: bursty).longest
            } else {
                retry = nil
                probeInterval = min(ConnectionGovernor.longestReprobeInterval, probeInterval * 2)
            }
            return Change(count: count, reason: "\(undone - count) more gave \(percent)% of a connection's throughput each; back to \(count)")
        }
        probeInterval = ConnectionGovernor.reprobeInterval
        retry = nil
        guard count < maximum, worthGrowing(rate: rates.all, remaining: remaining, latency: latency) else {
            let reason = count == maximum ? "at the cap of \(maximum)" : "too little left to need more"
            settle(now: now)
            return Change(count: count, reason: "\(added) more gave \(percent)% each; \(reason)")
        }
        // A step that helped is never followed by a smaller one: with fewer added connections, a
        // gain is harder to tell from the noise of a lossy path.
        let target = share >= ConnectionGovernor.linearShare ? count * 4 : count * 2
        return step(
            to: target, rates: rates, now: now, reason: "\(added) more gave \(percent)% of a connection's throughput each", fresh: true)
    }

    /// Every connection has been silent for a pause: from now on, measurements last whole
    /// seconds. When the connections were idle at least half the time since the count took
    /// effect, the link cannot be what limits them (a link that is the limit is busy while they
    /// wait on it): the count grows ×4 at once, judged against what the earlier connections
    /// carry beside the added ones. A stall of a busy download (a slow disk, a hiccup) does
    /// not qualify, nor a try still backing off.
    private mutating func paused(now: Double, bytes: Int64, remaining: Int64, latency: Double) -> Change? {
        let silent = now - quiet.since
        quiet = (bytes, now) // once per pause
        bursty = true
        let elapsed = now - (deliveringSince ?? now)
        guard count < maximum, elapsed > 0, idle >= elapsed / 2, nextProbe.map({ now >= $0 }) ?? true else { return nil }
        let rate = Double(bytes - bytesAtChange) / max(now - changedAt, ConnectionGovernor.ramp)
        guard worthGrowing(rate: rate, remaining: remaining, latency: latency) else { return nil }
        before = nil
        let reason = "every connection was silent for \(Int((silent * 1000).rounded())) ms; the server holds each back"
        return step(to: count * 4, rates: ThroughputWindow.Rates(all: 0, earlier: 0), now: now, reason: reason)
    }

    /// Where the first connection is in its slow start, looked at every `step` seconds.
    private enum SlowStart {
        /// Its rate over the last step still grew by more than a quarter.
        case growing
        /// Past `slowStartLimit`, or its rate grows slowly or fell: a measurement starts now.
        case over
        /// Its last two steps carried rates within `flat` of each other: together they are a
        /// measurement.
        case steady(ThroughputWindow.Rates)
    }

    /// Whether the first connection is still in slow start, for at most `slowStartLimit`
    /// seconds. A baseline taken there, at the peak a lossy path will not sustain, would make
    /// every step look bad.
    private mutating func slowStart(now: Double, bytes: Int64, step: Double) -> SlowStart {
        guard before == nil, nextProbe == nil, now - changedAt < ConnectionGovernor.slowStartLimit else { return .over }
        if let last = looks.last, now - last.time < step { return .growing }
        looks.append((now, bytes))
        if looks.count > 3 { looks.removeFirst() }
        guard looks.count == 3 else { return .growing }
        func rate(_ from: Int) -> Double { Double(looks[from + 1].bytes - looks[from].bytes) / (looks[from + 1].time - looks[from].time) }
        let (first, second) = (rate(0), rate(1))
        guard first > 0, second <= 1.25 * first else { return .growing }
        let spread = 1 - min(first, second) / max(first, second)
        // Flat, not merely slowing: after slow start, CUBIC still grows a connection that has
        // a link to itself by a tenth or more per look, and a baseline taken there would make
        // the next connections look useful (measured on the lab's `shared` link). Anything
        // short of flat gets a window of its own, as any later measurement does.
        guard spread <= ConnectionGovernor.flat else { return .over }
        let all = Double(bytes - looks[0].bytes) / (now - looks[0].time)
        return .steady(ThroughputWindow.Rates(all: all, earlier: all, spread: spread))
    }

    /// Whether more connections can pay for their setup: the rest would take longer, at the
    /// current rate, than a ramp and a measurement of them plus a few request latencies.
    private func worthGrowing(rate: Double, remaining: Int64, latency: Double) -> Bool {
        guard rate > 0 else { return false }
        let timing = ConnectionGovernor.timing(latency: latency, bursty: bursty)
        return Double(remaining) / rate >= 4 * latency + timing.ramp + timing.longest
    }

    private mutating func step(to target: Int, rates: ThroughputWindow.Rates, now: Double, reason: String, fresh: Bool = false) -> Change? {
        let next = min(maximum, target)
        guard next > count else {
            settle(now: now)
            return nil
        }
        before = (count, rates.all, rates.spread)
        freshBaseline = fresh
        nextProbe = nil
        count = next
        changedAt = now
        bytesAtChange = lastTick?.bytes ?? 0
        deliveringSince = nil
        window = nil
        return Change(count: next, reason: reason)
    }

    /// No step pending; the next try after the probe interval.
    private mutating func settle(now: Double) {
        nextProbe = now + probeInterval
        before = nil
    }

    /// The coordinator could open only `granted` of the connections the last step asked for
    /// (the session's per-host cap): the count is what it has, settled there; it asks again
    /// at the next try (other downloads may have given connections back by then).
    mutating func limited(to granted: Int, now: Double) {
        count = max(1, granted)
        changedAt = now
        bytesAtChange = lastTick?.bytes ?? 0
        deliveringSince = nil
        window = nil
        settle(now: now)
    }

    /// An added connection failed (a server limiting connections per client refuses or
    /// resets the extra ones): the count never goes beyond what is left.
    mutating func lowerMaximum(to count: Int, now: Double) {
        maximum = max(1, min(maximum, count))
        limited(to: min(self.count, maximum), now: now)
    }
}
