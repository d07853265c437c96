/// The rate of a growing count over its last few seconds: what
/// `DownloadProgress.bytesPerSecond` says of a download, and what a display can keep for
/// anything else that grows (a server's bytes in `DownloadProgress.sources`).
public struct SpeedWindow: Sendable {
    /// How far back the rate looks (at least two snapshots are kept).
    public let seconds: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    /// A window over the last `seconds`.
    public init(seconds: Double) {
        precondition(seconds >= 0, "a window of \(seconds) seconds")
        self.seconds = seconds
    }

    /// Adds a download's snapshot: its bytes at its elapsed time.
    public mutating func add(_ progress: DownloadProgress) { add(time: progress.elapsed, bytes: progress.completedBytes) }

    /// A sample of a count that grows: the bytes of a download, or of one of its servers.
    /// A count that went down started over (a stream retried from its first byte): the
    /// samples before it say nothing of the rate now.
    public mutating func add(time: Double, bytes: Int64) {
        if let last = samples.last, bytes < last.bytes || time < last.time { samples.removeAll() }
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > seconds, samples.count > 2 { samples.removeFirst() }
    }

    /// Bytes per second over the snapshots kept; 0 until time has passed between two.
    public var speed: Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }
}
