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

    /// A snapshot (the coordinator makes them; renderers' tests build their own).
    public init(totalBytes: Int64?, completedBytes: Int64, elapsed: Double, segments: [SegmentProgress]) {
        self.totalBytes = totalBytes
        self.completedBytes = completedBytes
        self.elapsed = elapsed
        self.segments = segments
    }
}

/// One segment of a progress snapshot.
public struct SegmentProgress: Sendable {
    /// What a segment is doing.
    public enum State: String, Sendable {
        /// No worker has taken it yet.
        case waiting
        /// A worker is receiving it.
        case active
        /// A worker has it, but nothing arrived lately.
        case stalled
        /// Every byte is written.
        case done
    }

    /// The bytes the segment covers now (a steal or hedge may have shortened it).
    public let range: ByteRange
    /// The first byte not yet written.
    public let written: Int64
    /// Bytes per second lately (0 while not measured).
    public let speed: Int64
    /// What it is doing.
    public let state: State
    /// Whether an idle connection took over part of its range (a steal or a won hedge).
    public let stolenFrom: Bool
    /// Whether an idle connection is hedging its tail now, or it is a tail a hedge won.
    public let hedged: Bool

    /// A snapshot entry; `speed`, `state` and the flags describe what the coordinator saw.
    public init(range: ByteRange, written: Int64, speed: Int64 = 0, state: State = .active, stolenFrom: Bool = false,
                hedged: Bool = false) {
        self.range = range
        self.written = written
        self.speed = speed
        self.state = state
        self.stolenFrom = stolenFrom
        self.hedged = hedged
    }
}

/// What a finished download did.
public struct DownloadReport: Sendable {
    /// Where the file is.
    public let path: String
    /// The file's length.
    public let bytes: Int64
    /// Seconds from the start of the run (probe included) to the final rename.
    public let seconds: Double
    /// Parallel connections used (1 for a single stream; 0 when nothing had to be fetched).
    public let segments: Int
    /// Times an idle connection took over the second half of a slower one's range.
    public let steals: Int
    /// Times an idle connection fetched a slow range's tail in parallel and delivered first.
    public let hedges: Int
    /// Hedges the slow connection won (the hedge stopped, having written nothing).
    public let hedgesLost: Int
    /// Connections opened, the probe's included.
    public let connections: Int
    /// Full TLS handshakes (0 for plain HTTP).
    public let fullHandshakes: Int
    /// TLS handshakes that resumed an earlier session of this download.
    public let resumedHandshakes: Int
    /// Attempts repeated after temporary failures.
    public let retries: Int
    /// Bytes that were already on disk from an earlier run.
    public let resumedBytes: Int64
    /// What the probe learned: final URL, length, validators.
    public let resource: RemoteResource
}

