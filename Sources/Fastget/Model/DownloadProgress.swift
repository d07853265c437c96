/// A snapshot of a running download, delivered from the coordinator thread.
public struct DownloadProgress: Sendable {
    /// The file's length, nil while unknown (a stream without Content-Length).
    public let totalBytes: Int64?
    /// Bytes written to the output so far.
    public let completedBytes: Int64
    /// Seconds since the download started (probe included).
    public let elapsed: Double
    /// Each segment: its range and how far it has been written.
    public let segments: [SegmentProgress]
    /// With mirrors, each server: the download's own URL first (empty with one server).
    public let sources: [SourceFigures]

    /// A snapshot (the coordinator makes them; renderers' tests build their own).
    public init(
        totalBytes: Int64?, completedBytes: Int64, elapsed: Double, segments: [SegmentProgress], sources: [SourceFigures] = []
    ) {
        self.totalBytes = totalBytes
        self.completedBytes = completedBytes
        self.elapsed = elapsed
        self.segments = segments
        self.sources = sources
    }
}
