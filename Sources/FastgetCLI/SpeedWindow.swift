import Fastget

/// The rate of a download over its last few seconds, from its progress snapshots: what the
/// terminal display and the plain log show as the speed.
struct SpeedWindow {
    /// How far back the rate looks (at least two snapshots are kept).
    let seconds: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    init(seconds: Double) { self.seconds = seconds }

    mutating func add(_ progress: DownloadProgress) { add(time: progress.elapsed, bytes: progress.completedBytes) }

    /// A sample of a count that grows: the bytes of a download, or of one of its servers.
    mutating func add(time: Double, bytes: Int64) {
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > seconds, samples.count > 2 { samples.removeFirst() }
    }

    /// Bytes per second over the snapshots kept; 0 until time has passed between two.
    var speed: Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }
}
