/// What a finished download did.
public struct DownloadReport: Sendable {
    /// Where the file is.
    public let path: String
    /// The file's length.
    public let bytes: Int64
    /// Seconds from the start of this run (probe included) to the final rename.
    public let seconds: Double
    /// Seconds the download ran in all: `seconds` plus the earlier runs a resumed journal
    /// recorded (to their last checkpoint).
    public var totalSeconds: Double = 0
    /// Workers that ran in parallel, each a thread with one connection at a time (1 for a single
    /// stream; 0 when nothing had to be fetched). The file may have had more segments: a worker
    /// takes the next one, or half of another's, when its own is done.
    public let workers: Int
    /// The old name of `workers`.
    @available(*, deprecated, renamed: "workers")
    public var segments: Int { workers }
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
    /// Each server the ranges came from, the download's own URL first, then the mirrors in
    /// use (empty without mirrors).
    public var sources: [SourceFigures] = []
    /// Whether the file went out as a stream, in order (`-o -`, or a `path` that is a device
    /// or a FIFO), not saved as a file.
    public var streamed = false
    /// The digest the file was checked against and matched (`--checksum`, the server's, or the
    /// one a resumed journal kept); nil when none was checked.
    public var verifiedDigest: Checksum?
    /// The connections the run planned, from the same decision `Download.dryRun()` reports as
    /// `DownloadPlan.connections` (after a restart, the last pass's); nil when nothing had to
    /// be fetched. `workers` says how many ran at once.
    public var plannedConnections: DownloadPlan.Connections?
}

/// One server of a download with mirrors: what came from it, and why it was dropped if it was.
public struct SourceFigures: Sendable, Equatable {
    /// Its URL as given (not where redirects led), without credentials.
    public let url: String
    /// Its host and port (`mirror.example.org`, `127.0.0.1:8080`).
    public let host: String
    /// Body bytes written from it in this run.
    public let bytes: Int64
    /// Why it was dropped for the rest of the run; nil when it served to the end.
    public let dropped: String?

    /// Figures of one server (the engine makes them; renderers' tests build their own).
    public init(url: String, host: String, bytes: Int64, dropped: String?) {
        self.url = url
        self.host = host
        self.bytes = bytes
        self.dropped = dropped
    }
}
