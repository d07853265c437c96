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
}

public struct SegmentProgress: Sendable {
    public let range: ByteRange
    /// The first byte not yet written.
    public let written: Int64
}

/// What a finished download did.
public struct DownloadReport: Sendable {
    /// Where the file is.
    public let path: String
    public let bytes: Int64
    public let seconds: Double
    /// Parallel connections used (1 for a single stream; 0 when nothing had to be fetched).
    public let segments: Int
    /// Times an idle connection took over the second half of a slower one's range.
    public let steals: Int
    /// Times an idle connection fetched a slow range's tail in parallel and delivered first
    /// (`hedges`), or was beaten to it by the slow connection (`hedgesLost`).
    public let hedges: Int
    public let hedgesLost: Int
    /// Connections opened, and for https how many TLS handshakes were full and how many
    /// resumed an earlier session of this download.
    public let connections: Int
    public let fullHandshakes: Int
    public let resumedHandshakes: Int
    /// Attempts repeated after temporary failures.
    public let retries: Int
    /// Bytes that were already on disk from an earlier run.
    public let resumedBytes: Int64
    public let resource: RemoteResource
}

