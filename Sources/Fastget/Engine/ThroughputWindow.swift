/// One measurement of a download's throughput for the automatic connection count: the byte
/// counts at every coordinator tick since it began, all connections' and those of the
/// connections there before the count last changed.
///
/// It ends once it is long enough and steady — its two halves carried rates within
/// `steadyShare` of each other — or once it reaches its longest. Steadiness is what lets a
/// smooth per-connection cap be judged in a fraction of a second while a bursty one is not
/// judged on a burst: nginx's `limit_rate` lets each connection's allowance out at whole
/// seconds of the server's clock, so a connection is silent most of a second and then sends a
/// second's worth at once; a window shorter than a second sees either nothing or a burst, and
/// its halves disagree. Slow start (the rate still doubling every round trip) and the sawtooth
/// of a lossy link disagree too. The longest window is a whole number of seconds, so that it
/// holds as many of nginx's releases as seconds, whatever its phase.
struct ThroughputWindow {
    struct Sample {
        let time: Double
        let bytes: Int64
        let earlier: Int64
    }

    /// What a finished window measured, in bytes per second.
    struct Rates: Equatable {
        let all: Double
        let earlier: Double
        /// How far the halves' rates differ, as a share of the faster (0 steady, 1 when one half
        /// carried nothing): the measurement's own noise.
        var spread = 0.0
        /// How long the window was.
        var seconds = 0.0
        /// The rate of its later half (0 when a half is empty).
        var late = 0.0
        /// The earlier connections' count went down within the window (a worker that ended
        /// takes its bytes with it): `earlier` says less than they carried.
        var earlierFell = false
        /// Seconds of the window in which the earlier connections carried nothing, in silences
        /// of at least `stall` seconds each (shorter gaps are how a slow connection delivers: a
        /// TLS record or a round trip at a time).
        var earlierIdle = 0.0
        /// How long the earlier connections have been silent as the window ends.
        var earlierSilent = 0.0
    }

    private var samples: [Sample]

    private var earlierFell = false
    /// The earlier connections' silences of `stall` or more that ended, and since when the
    /// current one lasts.
    private var earlierIdle = 0.0
    private var earlierSilentSince: Double?

    init(now: Double, bytes: Int64, earlier: Int64) {
        samples = [Sample(time: now, bytes: bytes, earlier: earlier)]
        samples.reserveCapacity(128)
    }

    /// Two halves steady when the slower carried at least this share of the faster.
    static let steadyShare = 0.75

    /// Adds a tick's counts; returns the window's rates once it has ended.
    /// - Parameters:
    ///   - shortest: seconds before which it never ends.
    ///   - longest: seconds after which it ends, steady or not.
    ///   - stall: the shortest silence of the earlier connections that counts as idle.
    mutating func add(now: Double, bytes: Int64, earlier: Int64, shortest: Double, longest: Double, stall: Double = 0) -> Rates? {
        // A bounded history: past 512 samples every other one goes (the middle is read only to
        // split the window in two); the first and the last always stay.
        if samples.count >= 512 { samples = stride(from: 0, to: samples.count - 1, by: 2).map { samples[$0] } }
        let last = samples[samples.count - 1]
        if earlier < last.earlier { earlierFell = true }
        if earlier == last.earlier {
            if earlierSilentSince == nil { earlierSilentSince = last.time }
        } else if let since = earlierSilentSince {
            if last.time - since >= stall { earlierIdle += last.time - since }
            earlierSilentSince = nil
        }
        let silence = earlierSilentSince.map { now - $0 } ?? 0
        samples.append(Sample(time: now, bytes: bytes, earlier: earlier))
        let first = samples[0]
        let seconds = now - first.time
        guard seconds >= shortest else { return nil }
        let halves = self.halves
        let spread = halves.map { 1 - min($0.early, $0.late) / max($0.early, $0.late) } ?? 1
        let rates = Rates(
            all: Double(bytes - first.bytes) / seconds, earlier: Double(earlier - first.earlier) / seconds, spread: spread,
            seconds: seconds, late: halves?.late ?? 0, earlierFell: earlierFell, earlierIdle: earlierIdle + (silence >= stall ? silence : 0),
            earlierSilent: silence)
        if seconds >= longest || spread <= 1 - ThroughputWindow.steadyShare { return rates }
        return nil
    }

    /// The two halves' rates (nil when either carried nothing).
    private var halves: (early: Double, late: Double)? {
        let first = samples[0]
        let last = samples[samples.count - 1]
        let middleTime = (first.time + last.time) / 2
        guard let middle = samples.last(where: { $0.time <= middleTime }), middle.time > first.time, last.time > middle.time else {
            return nil
        }
        let early = Double(middle.bytes - first.bytes) / (middle.time - first.time)
        let late = Double(last.bytes - middle.bytes) / (last.time - middle.time)
        guard early > 0, late > 0 else { return nil }
        return (early, late)
    }
}
