/// The low-speed limit (`DownloadOptions.speedLimit`), as a value the coordinator feeds a
/// sample every tick and that decides; the coordinator performs what it says.
///
/// Like curl, it judges the average over the last `seconds`, never one slow read: a body
/// arrives in bursts (a rate limiter's, TCP's), and a moment with nothing is not a slow
/// connection. A connection's clock starts with its response's body (first seen at a tick);
/// a connection still connecting or waiting for its answer is not judged (the connect and
/// I/O timeouts bound that).
///
/// A connection below the limit is dropped only while the whole download is not: then other
/// connections carry it at the limit or more, and the dropped range goes to a new connection.
/// When the download is below the limit as well, more connections to the same servers would
/// be as slow, so the download fails instead. Hence no loop: each drop happens while the
/// download progresses at the limit or more, and the first check of a slow download ends it.
struct LowSpeedWatch {
    /// Bytes per second.
    let limit: Int64
    let seconds: Double

    /// Body samples of the connections being judged, by worker id; `since` tells one body from
    /// the next.
    private var connections: [Int: (since: UInt64, window: RateWindow)] = [:]
    private var download: RateWindow

    init(limit: Int64, seconds: Double) {
        self.limit = limit
        self.seconds = seconds
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
        var slow: [Int: Int64] = [:]
        var seen = Set<Int>()
        for body in bodies where body.since != 0 {
            seen.insert(body.worker)
            if connections[body.worker]?.since != body.since {
                connections[body.worker] = (body.since, RateWindow(seconds: seconds))
            }
            connections[body.worker]!.window.record(now: now, bytes: body.bytes)
            if let rate = connections[body.worker]!.window.rate(now: now), rate < Double(limit) {
                slow[body.worker] = Int64(rate)
            }
        }
        connections = connections.filter { seen.contains($0.key) }
        guard !slow.isEmpty else { return .fine }
        if let rate = download.rate(now: now), rate < Double(limit) { return .fail(Int64(rate)) }
        for worker in slow.keys { connections[worker] = nil }
        return .drop(slow)
    }
}

/// Samples of a growing byte count, kept back to the latest one at least `seconds` old: the
/// average over the last `seconds` (a little more, by up to one tick).
struct RateWindow {
    let seconds: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    init(seconds: Double) { self.seconds = seconds }

    mutating func record(now: Double, bytes: Int64) {
        samples.append((now, bytes))
        // Keep exactly one sample at or before the window's start: the base of the average.
        while samples.count > 1, samples[1].time <= now - seconds { samples.removeFirst() }
    }

    /// Bytes per second since the base sample; nil until the samples span `seconds`.
    func rate(now: Double) -> Double? {
        guard let base = samples.first, let last = samples.last, now - base.time >= seconds, now > base.time else { return nil }
        return Double(max(0, last.bytes - base.bytes)) / (now - base.time)
    }
}
