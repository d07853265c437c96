/// The low-speed limit (`DownloadOptions.speedLimit`), as a value the coordinator feeds a
/// sample every tick and that decides; the coordinator performs what it says.
///
/// Like curl, it judges the average over the last `seconds`, never one slow read: a body
/// arrives in bursts (a rate limiter's, TCP's), and a moment with nothing is not a slow
/// connection. A connection's clock starts with its response's body (first seen at a tick);
/// a connection still connecting or waiting for its answer is not judged (the connect and
/// I/O timeouts bound that).
///
/// The limit is the download's, not each connection's: n connections sharing a capped link
/// (a server's per-client cap, `--limit-rate`) each run near limit ÷ n and are not slow. A
/// connection is slow only when it is below its share of the limit (the limit ÷ the connections
/// with a running body) and also well below its peers (under a quarter of their median): a
/// crawling connection among healthy ones, which a new connection can replace. Under
/// `--limit-rate` none is dropped: the shared bucket, not the server, sets each one's pace.
///
/// A slow connection is dropped only while the whole download is not below the limit: then
/// other connections carry it, and the dropped range goes to a new connection. When the
/// download is below the limit as well, more connections to the same servers would be as slow,
/// so the download fails instead. Hence no loop: each drop happens while the download
/// progresses at the limit or more, and the first check of a slow download ends it.
struct LowSpeedWatch {
    /// Bytes per second.
    let limit: Int64
    let seconds: Double
    /// Whether single connections may be dropped (false under a rate limit of our own).
    let drops: Bool

    /// Body samples of the connections being judged, by worker id; `since` tells one body from
    /// the next.
    private var connections: [Int: (since: UInt64, window: RateWindow)] = [:]
    private var download: RateWindow

    init(limit: Int64, seconds: Double, drops: Bool = true) {
        self.limit = limit
        self.seconds = seconds
        self.drops = drops
        download = RateWindow(seconds: seconds)
    }

    /// One worker's connection as a tick sees it: the start of its body (0: none) and the
    /// body bytes its worker wrote so far.
    struct Body {
        let worker: Int
        let since: UInt64
        let bytes: Int64
    }

    enum Verdict: Equatable {
        case fine
        /// Drop these workers' connections (measured rates, bytes per second, by worker).
        case drop([Int: Int64])
        /// The download's average over the window was this many bytes per second.
        case fail(Int64)
    }

    /// Records this tick's figures and decides.
    mutating func tick(now: Double, downloaded: Int64, bodies: [Body]) -> Verdict {
        download.record(now: now, bytes: downloaded)
        var rates: [Int: Double] = [:]
        var seen = Set<Int>()
        for body in bodies where body.since != 0 {
            seen.insert(body.worker)
            if connections[body.worker]?.since != body.since {
                connections[body.worker] = (body.since, RateWindow(seconds: seconds))
            }
            connections[body.worker]!.window.record(now: now, bytes: body.bytes)
            rates[body.worker] = connections[body.worker]!.window.rate(now: now)
        }
        connections = connections.filter { seen.contains($0.key) }
        let share = Double(limit) / Double(max(1, seen.count))
        var slow: [Int: Int64] = [:]
        for (worker, rate) in rates where rate < share {
            let peers = rates.filter { $0.key != worker }.values.sorted()
            // Below a quarter of the peers' median: crawling, not sharing a capped link.
            if peers.isEmpty || rate < peers[peers.count / 2] / 4 { slow[worker] = Int64(rate) }
        }
        // The download fails once it is below the limit with a connection that ran a whole
        // window below it too (not merely between bodies).
        if let rate = download.rate(now: now), rate < Double(limit), rates.values.contains(where: { $0 < Double(limit) }) {
            return .fail(Int64(rate))
        }
        guard drops, !slow.isEmpty else { return .fine }
        for worker in slow.keys { connections[worker] = nil }
        return .drop(slow)
    }
}

/// Samples of a growing byte count, kept back to the latest one at least `seconds` old: the
/// average over the last `seconds` (a little more: by up to one tick and one bucket).
///
/// At most `buckets` samples span the window, whatever `seconds` is (ticks come 10 times a
/// second, so `-y 86400` would otherwise keep 864,000 per connection): a sample closer than
/// `seconds / buckets` to the one before the last replaces the last.
struct RateWindow {
    let seconds: Double
    private var samples: [(time: Double, bytes: Int64)] = []
    static let buckets = 64

    init(seconds: Double) { self.seconds = seconds }

    /// How many samples are kept (at most `buckets` + 2).
    var count: Int { samples.count }

    mutating func record(now: Double, bytes: Int64) {
        if samples.count >= 2, now - samples[samples.count - 2].time < seconds / Double(RateWindow.buckets) {
            samples[samples.count - 1] = (now, bytes)
        } else {
            samples.append((now, bytes))
        }
        // Keep exactly one sample at or before the window's start: the base of the average.
        while samples.count > 1, samples[1].time <= now - seconds { samples.removeFirst() }
    }

    /// Bytes per second since the base sample; nil until the samples span `seconds`.
    func rate(now: Double) -> Double? {
        guard let base = samples.first, let last = samples.last, now - base.time >= seconds, now > base.time else { return nil }
        return Double(max(0, last.bytes - base.bytes)) / (now - base.time)
    }
}
