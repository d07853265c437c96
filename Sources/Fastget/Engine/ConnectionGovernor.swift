/// Chooses how many connections a download with an automatic count uses, from the throughput
/// the coordinator measures.
///
/// What is measured: the bytes of all connections, and of those there before the last step,
/// over a `ThroughputWindow`. The first connection is looked at on every tick, over its last
/// two looks of a tenth of a second (a twentieth where requests take a few ms) each, until its
/// rate stops growing; when the two agree within a tenth (a rate held by a cap), they are the
/// first measurement, and the first step is taken at once. Any other window starts once every connection delivers
/// and a ramp of two request latencies has passed (a new connection's slow start), and ends
/// when its two halves agree within a quarter, after at least 0.15 s and two request
/// latencies, or at its longest: 0.5 s and four request latencies (about eight round trips),
/// whole seconds once the server was seen to send in bursts. Windows follow each other without
/// a gap, so every judgment is against the rate just before it.
///
/// The rule: one connection to start, then ×4. A step is judged by what each added connection
/// brought, against a per-connection baseline from just before it (the larger of that rate and
/// what the earlier connections carry in the window after it: on a shared link they slow
/// down). The gain must also beat the windows' own noise. A step that brought three quarters
/// of a connection each is followed by ×4 (at once, before its ramp and window, when they carry
/// that from their first bytes), any other that helped by ×2. One that brought less
/// than a tenth each, or nothing beyond the noise, is undone: at once when the total fell by a
/// fifth, otherwise only on a window of the longest length whose halves agree within a
/// quarter; until then the same window goes on (to the longest, then two and four times
/// that), as a lossy path's stalls and cut-short slow starts make a short window say little.
/// An undone step whose baseline came from connections just started (the step before had
/// added them, or the total fell by a fifth, which a link that is the limit never makes
/// happen: their slow start's overshoot, which a lossy path does not keep, was in it) is tried
/// once more a longest window later, against their settled rate. A settled count tries a
/// quarter more (at least one) after `reprobeInterval`, doubling the wait after each try that
/// did not pay, up to `longestReprobeInterval`. It stops growing at the per-host cap, or when what is left would
/// be done before more connections could be judged.
///
/// Why a burst or loss noise cannot fool it: a link that is the limit is never idle while
/// connections wait on it, and leaves each connection its share. So a silence of every
/// connection for about four round trips is a pause (`paused`), and earlier connections silent
/// half the time (in such silences) and under their share after a step that did not raise the
/// total are held back (`heldBack`): the server holds each connection back, and the count goes
/// to its maximum at once (after a pause judged there as any step is; held back, kept); no
/// step of ×4 is taken while a pause may be beginning. From the first pause on, windows last
/// whole seconds, which hold as many per-second releases as seconds whatever their phase, and
/// a window half of which carried nothing is never judged. A lossy path's sawtooth and
/// timeouts make halves disagree, so its windows run long, and a gain within their spread
/// does not count.
///
/// Pure logic: the coordinator feeds it the clock and byte counts and applies its changes;
/// `GovernorTrace` records those inputs, and the tests replay them.
struct ConnectionGovernor {
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
    private(set) var before: (count: Int, rate: Double, spread: Double)?
    /// Settled: when to try more connections next.
    private(set) var nextProbe: Double?
    private var probeInterval = ConnectionGovernor.reprobeInterval
    /// A step undone against a baseline from freshly added connections, tried again once.
    private var retry: Int?
    /// Whether the step being judged was taken on the first window after a growth step.
    private var freshBaseline = false
    /// A step was taken (the count is no longer the one the download started with).
    private var stepped = false
    /// What the count an undo went back to carried when the step was judged.
    private var settledRate: Double?
    /// How many times the judgment of the step was put off for a longer window (see `judge`).
    private var extensions = 0
    /// The bytes at the last tick, and since when they have not moved.
    private var quiet: (bytes: Int64, since: Double) = (0, 0)
    /// The previous tick, the seconds since `deliveringSince` in which no byte came, and the
    /// bytes by `changedAt` (a server's first burst may be in before every connection delivers).
    private var lastTick: (time: Double, bytes: Int64)?
    private var idle = 0.0
    private var bytesAtChange: Int64 = 0
    /// All bytes and the earlier connections' bytes when every connection first delivered.
    private var bytesAtDelivery: (all: Int64, earlier: Int64) = (0, 0)
    /// Every connection was once silent together, or half a window carried nothing: the server
    /// sends in bursts, and a short window that looks steady may be one burst. Measurements
    /// last whole seconds from then on.
    private var bursty = false
    /// Every connection was once silent together for a look: new connections may show a
    /// server's first allowance, not their rate (see `early`).
    private var silentOnce = false
    /// The first connection's byte counts over its last two looks while in slow start
    /// (`slowStart`).
    var looks: [(time: Double, bytes: Int64)] = []

    init(maximum: Int, initial: Int = 1, now: Double) {
        precondition(maximum >= 1 && initial >= 1)
        self.maximum = maximum
        count = min(initial, maximum)
        changedAt = now
    }

    /// Whether the coordinator should tick often: while a step is judged or before the first.
    var isMeasuring: Bool { nextProbe == nil }

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
        if now - quiet.since >= ConnectionGovernor.look(latency: latency) { silentOnce = true }
        lastTick = (now, bytes)
        if deliveringSince == nil {
            guard streaming >= count || now - changedAt >= ConnectionGovernor.startupLimit else { return nil }
            deliveringSince = now
            bytesAtDelivery = (bytes, earlier)
            quiet = (bytes, now)
            idle = 0
        }
        if now - quiet.since >= ConnectionGovernor.pauseLength(latency: latency),
            let change = paused(now: now, bytes: bytes, remaining: remaining, latency: latency)
        {
            return change
        }
        if let change = early(now: now, bytes: bytes, earlier: earlier, remaining: remaining, latency: latency) { return change }
        guard var window else {
            let first = before == nil && nextProbe == nil && now - changedAt < ConnectionGovernor.slowStartLimit
            // The first connection's slow start is what its looks see: they start at once.
            // Added connections get their ramp before a measurement starts.
            guard first || now - deliveringSince! >= timing.ramp else { return nil }
            let look = ConnectionGovernor.look(latency: latency)
            switch slowStart(now: now, bytes: bytes, step: look, over: deliveringSince! + timing.ramp + 2 * look) {
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
        // A judgment put off runs its window to the longer end, steady or not.
        let longest = ConnectionGovernor.extendedLength(timing.longest, extensions)
        let shortest = extensions > 0 ? longest : bursty ? timing.longest : timing.shortest
        let stall = ConnectionGovernor.pauseLength(latency: latency) // an earlier one's that counts (`heldBack`)
        guard let rates = window.add(now: now, bytes: bytes, earlier: earlier, shortest: shortest, longest: longest, stall: stall) else {
            self.window = window
            return nil
        }
        // The next measurement starts at once: a settled count's rate stays current.
        self.window = ThroughputWindow(now: now, bytes: bytes, earlier: earlier)
        let extended = extensions
        let change = measured(rates, now: now, remaining: remaining, latency: latency)
        if extensions > extended { self.window = window } // the same measurement, for longer
        return change
    }

    /// What a finished measurement leads to: a judgment of the step before it, a try of a
    /// settled count, or the first step.
    private mutating func measured(_ rates: ThroughputWindow.Rates, now: Double, remaining: Int64, latency: Double) -> Change? {
        if rates.spread >= ConnectionGovernor.burstSpread, !bursty {
            // Half the window carried (almost) nothing: a burst and a pause, not a rate. From
            // now on, whole seconds; this window is not judged.
            bursty = true
            extensions = 0
            return nil
        }
        if let before { return judge(rates, before: before, now: now, remaining: remaining, latency: latency) }
        // Every connection silent for half a look (25-50 ms, half a latency past 0.1 s) or
        // more, now: maybe a pause beginning (a server's first allowance spent), which `paused`
        // answers with the maximum once it has lasted. A step of ×4 taken now would be judged
        // on bursts, in whole seconds. (The window restarts: the next chance is its end.)
        if now - quiet.since >= ConnectionGovernor.look(latency: latency) / 2, !bursty { return nil }
        if let nextProbe {
            guard now >= nextProbe, count < maximum,
                ConnectionGovernor.worthGrowing(rate: rates.all, remaining: remaining, latency: latency, bursty: bursty)
            else {
                return nil
            }
            if let retry { return step(to: retry, rates: rates, now: now, reason: "trying \(retry) again, against a settled rate") }
            return step(to: count + max(1, count / 4), rates: rates, now: now, reason: "trying more connections")
        }
        guard count < maximum, ConnectionGovernor.worthGrowing(rate: rates.all, remaining: remaining, latency: latency, bursty: bursty) else {
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
        // Nothing before (`heldBack`): anything now is a connection's worth each.
        let share = added > 0 ? (perConnection > 0 ? (rates.all - baseline) / Double(added) / perConnection : rates.all > 0 ? 1 : 0) : 0
        // A gain counts only beyond the measurements' own noise (half their halves' spread): on
        // a shared link a noisy window must not pass for a connection's worth.
        let noise = max(before.spread * before.rate, rates.spread * rates.all) / 2
        let significant = rates.all - baseline > noise
        let percent = Int((share * 100).rounded())
        if share < ConnectionGovernor.meaningfulShare || !significant {
            let longest = ConnectionGovernor.timing(latency: latency, bursty: bursty).longest
            // Fewer connections only on a window of the longest length, and a steady one: a
            // short window's halves may agree by chance on a lossy path, where every
            // connection stalls now and then and the added ones may still be in a slow start
            // that loss keeps cutting short. Until then, no verdict: the same window goes on,
            // to the longest length, then twice and four times that.
            // A total that fell by a fifth or more needs no longer look: the undo comes at once,
            // and the step is tried again once the connections left have settled (below).
            let unsteady = rates.spread > 1 - ThroughputWindow.steadyShare
            let fell = before.rate - rates.all > max(noise, ConnectionGovernor.dropShare * before.rate)
            let more = extensions < ConnectionGovernor.longestExtensions && !fell
            if more, unsteady || rates.seconds < longest { return putOff(past: rates.seconds, longest: longest) }
            if !fell, mayBeHeldBack(rates, remaining: remaining, latency: latency) {
                if rates.seconds >= longest, rates.earlierIdle >= rates.seconds / 2 { return heldBack(rates, now: now) }
                let hushed = rates.earlierSilent >= ConnectionGovernor.pauseLength(latency: latency)
                if more, hushed { return putOff(past: rates.seconds, longest: longest) } // silent as it ends: look longer
            }
            extensions = 0
            let undone = count
            settledRate = before.rate
            count = before.count
            changedAt = now
            bytesAtChange = lastTick?.bytes ?? 0
            deliveringSince = nil // the connections left deliver already: the next tick starts anew
            window = nil
            settle(now: now)
            if freshBaseline || fell, retry == nil {
                // The baseline came from connections just started (a step had just added them,
                // or more carried a fifth less in all than they did, which a link that is the
                // limit never makes happen): their rate then may still have held their slow
                // start's overshoot, which a lossy path does not sustain, so the step looked
                // worse than it is. Once they have settled, the same step is tried once more,
                // against their settled rate.
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
        extensions = 0
        guard count < maximum, ConnectionGovernor.worthGrowing(rate: rates.all, remaining: remaining, latency: latency, bursty: bursty) else {
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

    /// A step whose added connections each carry three quarters of a connection's rate from
    /// their first bytes on is judged at once, without its ramp and window: a slow start only
    /// makes new connections look worse than they will be, so a gain that shows already is
    /// one (on a link that is the limit, the total cannot grow by that much). Not once every
    /// connection was silent together for a look: a server that sends in bursts (nginx's
    /// `limit_rate` gives each new request its first second at once) may be holding them back,
    /// and new connections' first allowances then pass for a gain the step does not keep.
    private mutating func early(now: Double, bytes: Int64, earlier: Int64, remaining: Int64, latency: Double) -> Change? {
        guard let before, extensions == 0, !bursty, !silentOnce, let since = deliveringSince else { return nil }
        let seconds = now - since
        guard seconds >= max(ConnectionGovernor.look(latency: latency), 2 * latency) else { return nil }
        let all = Double(bytes - bytesAtDelivery.all) / seconds
        let rates = ThroughputWindow.Rates(
            all: all, earlier: Double(earlier - bytesAtDelivery.earlier) / seconds, spread: before.spread, seconds: seconds)
        let baseline = max(before.rate, rates.earlier)
        let gain = (all - baseline) / Double(max(1, count - before.count))
        // Beyond the noise `judge` will reckon too, so that it takes this step and no other.
        guard baseline > 0, gain >= ConnectionGovernor.linearShare * baseline / Double(before.count),
            all - baseline > before.spread * all / 2
        else { return nil }
        return judge(rates, before: before, now: now, remaining: remaining, latency: latency)
    }

    /// Every connection has been silent for a pause: from now on, measurements last whole
    /// seconds. When they were idle a third of the time since the count took effect (a longest
    /// window at least after a step: a stall just after one says nothing), the count goes to the
    /// maximum, judged against the rate since then (over a second at least: a first allowance is
    /// no rate), so a link the stalls came from undoes it. Not ×4: a server holding each connection
    /// back gains from every one, and each step of whole-second windows would cost a second or
    /// more. A stall of a busy download (a slow disk) does not qualify, nor a try backing off.
    private mutating func paused(now: Double, bytes: Int64, remaining: Int64, latency: Double) -> Change? {
        let silent = now - quiet.since
        quiet = (bytes, now) // once per pause
        if !bursty { extensions = 0 } // from now on, windows of whole seconds
        bursty = true
        let elapsed = now - (deliveringSince ?? now)
        let longest = ConnectionGovernor.timing(latency: latency).longest
        guard count < maximum, elapsed >= longest || !stepped, idle >= elapsed / 3 else { return nil }
        let rate = Double(bytes - bytesAtChange) / max(now - changedAt, 1)
        // A count backing off after an undo waits for its next try, unless its rate has since
        // fallen to half what it was judged at: what holds the connections back has changed
        // (a token bucket spent, as nginx's `limit_rate_after` does), and the undo's verdict
        // is stale.
        if let nextProbe, now < nextProbe, !(settledRate.map { rate < $0 / 2 } ?? false) { return nil }
        guard ConnectionGovernor.worthGrowing(rate: rate, remaining: remaining, latency: latency, bursty: bursty) else { return nil }
        let reason = "every connection was silent for \(Int((silent * 1000).rounded())) ms; the server holds each back"
        before = nil
        return step(to: maximum, rates: ThroughputWindow.Rates(all: rate, earlier: rate), now: now, reason: reason)
    }

    /// A step about to be undone though the total held is not when the connections there before
    /// it carried under their share of the rate before (their count never going down) and were
    /// silent, in silences of a pause's length (`stall`), half of a window of the longest length:
    /// a link that is the limit keeps a sender with data busy and leaves each connection its
    /// share, so the server holds each back once an allowance is spent (nginx's
    /// `limit_rate_after`), as it will the added ones. The count goes to the maximum and stays:
    /// it is judged against what it carries held back as the earlier ones were, which is
    /// nothing or little, so only a total that falls takes it back.
    private func mayBeHeldBack(_ rates: ThroughputWindow.Rates, remaining: Int64, latency: Double) -> Bool {
        guard let before, count < maximum, !rates.earlierFell, before.rate > 0 else { return false }
        return rates.earlier < before.rate * Double(before.count) / Double(count)
            && ConnectionGovernor.worthGrowing(rate: rates.all, remaining: remaining, latency: latency, bursty: bursty)
    }

    /// What `mayBeHeldBack` and a window of held-back connections lead to: the maximum.
    private mutating func heldBack(_ rates: ThroughputWindow.Rates, now: Double) -> Change? {
        guard let before else { return nil }
        probeInterval = ConnectionGovernor.reprobeInterval
        retry = nil
        let percent = Int((max(0, rates.earlier) / before.rate * 100).rounded())
        let reason = "the \(before.count) there before fell to \(percent)% of their rate while \(count - before.count) more carried the rest"
        let rate = max(0, rates.earlier) / Double(before.count) * Double(count)
        self.before = nil
        return step(to: maximum, rates: ThroughputWindow.Rates(all: rate, earlier: rate), now: now, reason: reason + "; the server holds each back")
    }

    /// No verdict yet: the same window goes on, to the next length past `seconds`.
    private mutating func putOff(past seconds: Double, longest: Double) -> Change? {
        repeat {
            extensions += 1
        } while extensions < ConnectionGovernor.longestExtensions && ConnectionGovernor.extendedLength(longest, extensions) <= seconds
        return nil
    }

    private mutating func step(to target: Int, rates: ThroughputWindow.Rates, now: Double, reason: String, fresh: Bool = false) -> Change? {
        let next = min(maximum, target)
        guard next > count else {
            settle(now: now)
            return nil
        }
        before = (count, rates.all, rates.spread)
        settledRate = nil
        freshBaseline = fresh
        stepped = true
        extensions = 0
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
        extensions = 0
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
