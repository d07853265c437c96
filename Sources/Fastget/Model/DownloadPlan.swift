/// What a download would do, learnt by probing only (`Download.dryRun()`): nothing is written.
public struct DownloadPlan: Sendable {
    /// What the probe learnt: the URL after redirects, length, ranges, validators, digest,
    /// announced mirrors.
    public let resource: RemoteResource
    /// Where the file would be saved (the name `Content-Disposition` gives, when none was).
    public let destination: String
    /// Whether something already exists there.
    public let destinationExists: Bool
    /// The ranges a run would fetch: a fresh start's plan, or what a resumable journal leaves;
    /// the units of a file written out in order; one range for a single stream, none when the
    /// length is unknown.
    public let ranges: [ByteRange]
    /// The journal beside the destination, and whether a run would resume from it.
    public let journal: JournalState
    /// The other tool's state file `-c` would continue from (aria2's `NAME.aria2`, axel's
    /// `NAME.st`); nil when there is none or a journal is resumed instead.
    public var continuation: Continuation? = nil
    /// How many connections a run would use: the same value the run decides its count from.
    public var connections: Connections = .fixed(1)

    /// Another tool's state file a run would continue from, and how much it marks done.
    public struct Continuation: Sendable, Equatable {
        /// `aria2` or `axel`.
        public let tool: String
        /// Its path, beside the output.
        public let stateFile: String
        /// The bytes it marks done, which the run keeps.
        public let bytesDone: Int64
    }

    /// A journal as a run would find it.
    public enum JournalState: Sendable, Equatable {
        /// There is none.
        case none
        /// A run resumes from it, with this many bytes already on disk.
        case resumable(bytesOnDisk: Int64)
        /// A run would start over, for this reason.
        case unusable(String)
    }
}

extension DownloadPlan {
    /// How many connections a run uses (`DownloadPlan.connections`,
    /// `DownloadReport.plannedConnections`).
    public enum Connections: Sendable, Equatable {
        /// This many from the start: `DownloadOptions.segments` (at most one per range left),
        /// eight within the per-host cap for a file written out in order, or one for a single
        /// stream and for a file small enough to come in one request.
        case fixed(Int)
        /// An automatic count: one connection first, more while they help, up to `upTo` (the
        /// session's per-host cap on each host serving the file; a mirror whose probe fails at
        /// the start of a run takes its host's share away).
        case automatic(upTo: Int)
    }
}
