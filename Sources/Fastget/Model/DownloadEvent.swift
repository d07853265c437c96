/// What a download tells its observers.
///
/// Events of a running download come from its coordinator thread (the thread in `run()`, or the
/// one `start()` created), never from a worker thread, in this order: `stateChanged(.probing)`,
/// `sizeKnown`, `stateChanged(.downloading)`, `progress` at most every
/// `DownloadOptions.progressPeriod`, then one final event: `completed`, `failed` or
/// `cancelled` (each after its `stateChanged`). A pause ends with `stateChanged(.paused)` and no
/// final event; a resumed download starts the sequence again. Changes made while nothing runs
/// (pausing or cancelling a queued download, resuming a paused one) are delivered on a thread
/// the library starts for that delivery of that download, never inside the caller's own call
/// (a handler may take a lock the caller holds); a handler that blocks there holds up only
/// its own download's events. A download's events are delivered one at a time and in order: the
/// events of a run that starts while such a delivery is still going on are delivered by it,
/// after the change.
public enum DownloadEvent: Sendable {
    case stateChanged(DownloadState)
    /// The probe learned the file's length (nil: unknown, the file is streamed).
    case sizeKnown(Int64?)
    /// The transfer begins: what the probe found, the segments (one for a stream) and the bytes
    /// already on disk from an earlier run.
    case transferStarted(RemoteResource, segments: [ByteRange], resumedBytes: Int64)
    /// A request went out (`range` for a range request).
    case request(method: String, url: HTTPURL, range: String?)
    /// A range request failed and is tried again (attempt 1 is the first retry).
    case retry(attempt: Int, error: FastgetError)
    /// An idle connection took over this range from a slower one.
    case steal(ByteRange)
    /// An idle connection raced a slow one for this range: `won` when it delivered first.
    case hedge(ByteRange, won: Bool)
    /// An automatic connection count changed (`DownloadOptions.segments` nil): how many
    /// connections the download uses now, and why.
    case connectionsChanged(count: Int, reason: String)
    /// The journal now records this many bytes as safely on disk.
    case checkpoint(bytesOnDisk: Int64)
    case progress(DownloadProgress)
    /// A one-line remark: a journal that could not be used, a restart because the file changed.
    case notice(String)
    case completed(DownloadReport)
    case failed(FastgetError)
    case cancelled

    /// Whether this is the download's last event.
    public var isFinal: Bool {
        switch self {
        case .completed, .failed, .cancelled: true
        default: false
        }
    }
}
