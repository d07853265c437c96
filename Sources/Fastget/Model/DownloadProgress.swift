/// A snapshot of a running download, delivered from the coordinator thread.
public struct DownloadProgress: Sendable {
    /// The file's length, nil while unknown (a stream without Content-Length).
    public let totalBytes: Int64?
    /// Bytes written to the output so far.
    public let completedBytes: Int64
    /// Seconds since this run of the download started (probe included): since `run()`,
    /// `start()` or the last `resume()`.
    public let elapsed: Double
    /// Seconds the download has run in all: `elapsed` plus the time of the runs a resumed
    /// journal recorded (after a pause, a stop or a crash, to the last checkpoint).
    public let totalElapsed: Double
    /// Each segment: its range and how far it has been written.
    public let segments: [SegmentProgress]
    /// With mirrors, each server: the download's own URL first (empty with one server).
    public let sources: [SourceFigures]
    /// Bytes per second over the last three seconds (0 until two snapshots apart). Each pass
    /// of the download measures afresh: after a pause, a restart, or a stream retried from
    /// its start, it is 0 again until the next two snapshots.
    public let bytesPerSecond: Double

    /// A snapshot (the coordinator makes them; renderers' tests build their own);
    /// `totalElapsed` is `elapsed` when not given.
    public init(
        totalBytes: Int64?, completedBytes: Int64, elapsed: Double, totalElapsed: Double? = nil, segments: [SegmentProgress],
        sources: [SourceFigures] = [], bytesPerSecond: Double = 0
    ) {
        self.totalBytes = totalBytes
        self.completedBytes = completedBytes
        self.elapsed = elapsed
        self.totalElapsed = totalElapsed ?? elapsed
        self.segments = segments
        self.sources = sources
        self.bytesPerSecond = bytesPerSecond
    }

    /// How much of the file is in, from 0 to 1 (an empty file is complete); nil while its
    /// length is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        return totalBytes > 0 ? min(1, Double(completedBytes) / Double(totalBytes)) : 1
    }

    /// What is left at `bytesPerSecond`; nil while the length or the speed is unknown (or
    /// what is left would take over 30 years at it).
    public var estimatedTimeRemaining: Duration? {
        guard let totalBytes, bytesPerSecond > 0 else { return nil }
        let seconds = Double(max(0, totalBytes - completedBytes)) / bytesPerSecond
        return seconds < 1e9 ? .milliseconds(Int64((seconds * 1000).rounded())) : nil
    }

    /// This snapshot with the speed `window` measures once it is added.
    package func measured(by window: inout SpeedWindow) -> DownloadProgress {
        window.add(self)
        return DownloadProgress(
            totalBytes: totalBytes, completedBytes: completedBytes, elapsed: elapsed, totalElapsed: totalElapsed, segments: segments,
            sources: sources, bytesPerSecond: window.speed)
    }
}
