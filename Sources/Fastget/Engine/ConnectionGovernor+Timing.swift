/// The rule's changes, constants and the timing of its measurements (`ConnectionGovernor`).
extension ConnectionGovernor {
    /// A new count and why, for `--verbose` and `--json`.
    struct Change: Equatable, Sendable {
        let count: Int
        let reason: String
    }

    /// At most this many times: to the longest window, then twice and four times as long.
    static let longestExtensions = 3

    /// The length of a window put off `extensions` times.
    static func extendedLength(_ longest: Double, _ extensions: Int) -> Double {
        extensions > 0 ? longest * Double(1 << (extensions - 1)) : longest
    }

    /// A window whose halves differ by this share of the faster is one burst and a pause.
    static let burstSpread = 0.95

    /// A measurement lasts at least this many seconds (and two request latencies)…
    static let shortestWindow = 0.15
    /// …and at most this many seconds (and four request latencies).
    static let longestWindow = 0.5
    /// Seconds after every connection delivers before a measurement starts, at least.
    static let ramp = 0.1
    /// Seconds every connection must have been silent, at least (and two request latencies,
    /// about four round trips), for a pause: a link that is the limit is never idle while
    /// connections wait on it, and a sender with data never stops for round trips on end, so a
    /// pause means something holds each connection back (a server's per-connection rate, a
    /// lossy path's timeouts), and more connections cannot slow the others down.
    static let pause = 0.15
    /// A pause's length for a request latency: `pause`, and two latencies at least.
    static func pauseLength(latency: Double) -> Double { max(pause, 2 * latency) }
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
    static let settling = 1.0
    /// Seconds of one look at the first connection: 25 request latencies (round trips, each
    /// of which TCP may send in one burst), between these two lengths, and one latency at least.
    /// On a link of a few milliseconds a look is short, and the first step comes sooner.
    static let shortestLook = 0.05
    static let longestLook = 0.1
    static func look(latency: Double) -> Double { max(latency, min(longestLook, max(shortestLook, 25 * latency))) }
    /// How far the first connection's last two looks may differ (a share of the faster) to
    /// count as its settled rate.
    static let flat = 0.1
    /// Shares of an existing connection's throughput that each added one must bring: for
    /// growing ×4; below the second, the step is undone.
    static let linearShare = 0.75
    static let meaningfulShare = 0.1
    /// A share of the baseline by which the total after a step must fall for its undo to come
    /// without a longer window, and to be tried again (see `judge`).
    static let dropShare = 0.2

    /// Seconds of the ramp, the shortest and the longest measurement, for a request latency.
    /// A bursty server's measurements last whole seconds (its allowance comes each second).
    static func timing(latency: Double, bursty: Bool = false) -> (ramp: Double, shortest: Double, longest: Double) {
        let longest = max(longestWindow, 4 * latency)
        return (max(ramp, 2 * latency), max(shortestWindow, 2 * latency), bursty ? max(1, longest.rounded(.up)) : longest)
    }

    /// Whether more connections can pay for their setup: the rest would take longer, at the
    /// current rate, than a ramp and a measurement of them plus a few request latencies.
    static func worthGrowing(rate: Double, remaining: Int64, latency: Double, bursty: Bool) -> Bool {
        guard rate > 0 else { return false }
        let timing = timing(latency: latency, bursty: bursty)
        return Double(remaining) / rate >= 4 * latency + timing.ramp + timing.longest
    }

    /// Where the first connection is in its slow start, over its last two looks of `step`
    /// seconds each.
    enum SlowStart {
        /// Its rate over the last look still grew by more than a quarter, or neither grew
        /// that much nor held, and the ramp and two looks are not over yet.
        case growing
        /// Past `slowStartLimit`, or its rate neither grows by a quarter nor holds within a
        /// tenth once the ramp and two looks are over: a measurement starts now.
        case over
        /// Its last two steps carried rates within `flat` of each other: together they are a
        /// measurement.
        case steady(ThroughputWindow.Rates)
    }
}

extension ConnectionGovernor {
    /// Whether the first connection is still in slow start, for at most `slowStartLimit`
    /// seconds. A baseline taken there, at the peak a lossy path will not sustain, would make
    /// every step look bad. Looked at on every tick over the last two `step`s, so that the
    /// first moment its rate holds is seen, not the next look after it; a rate between
    /// growing and flat is given until `over` (the ramp and two steps) to settle.
    mutating func slowStart(now: Double, bytes: Int64, step: Double, over: Double) -> SlowStart {
        guard before == nil, nextProbe == nil, now - changedAt < ConnectionGovernor.slowStartLimit else { return .over }
        looks.append((now, bytes))
        // What two steps back needs: the last look at or before then, and those after it.
        while looks.count > 2, looks[1].time <= now - 2 * step { looks.removeFirst() }
        guard let start = looks.first, now - start.time >= 2 * step,
            let middle = looks.last(where: { $0.time <= now - step }), middle.time > start.time, now > middle.time
        else { return .growing }
        let first = Double(middle.bytes - start.bytes) / (middle.time - start.time)
        let second = Double(bytes - middle.bytes) / (now - middle.time)
        guard first > 0, second <= 1.25 * first else { return .growing }
        let spread = 1 - min(first, second) / max(first, second)
        // Flat, not merely slowing: after slow start, CUBIC still grows a connection that has
        // a link to itself by a tenth or more per look, and a baseline taken there would make
        // the next connections look useful (measured on the lab's `shared` link). Anything
        // short of flat gets a window of its own, as any later measurement does.
        guard spread <= ConnectionGovernor.flat else { return now >= over ? .over : .growing }
        let all = Double(bytes - start.bytes) / (now - start.time)
        return .steady(ThroughputWindow.Rates(all: all, earlier: all, spread: spread, seconds: now - start.time))
    }
}
