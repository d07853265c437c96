/// Where a download is in its life.
///
/// ```
/// queued ──▶ probing ──▶ downloading ──▶ completed
///    │          │  ▲          │  │
///    │          │  └──────────┘  │        (restart: the file changed on the server)
///    │          ├──────────▶ paused ◀────┘
///    │          │              │  └──▶ queued  (resume)
///    ▼          ▼              ▼
/// cancelled   failed       cancelled
/// ```
///
/// `probing` and `downloading` may also end in `failed` or `cancelled` (and `queued` in `failed`
/// when no thread can be started for it); `completed`, `failed` and
/// `cancelled` are final. Calls that do not apply to the current state (pausing a completed
/// download, resuming one that is running) change nothing.
public enum DownloadState: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Created, or resumed, and waiting to start (a queue starts it when a slot is free).
    case queued
    /// Asking the server for length, validators and the final URL.
    case probing
    /// Transferring.
    case downloading
    /// Stopped with a checkpoint: the `.part` file and the journal are kept; `resume` continues.
    case paused
    /// The file is complete under its final name.
    case completed
    /// Stopped by an error; the `.part` file and journal stay, so a new download of the same URL
    /// and destination resumes.
    case failed
    /// Stopped for good by `cancel` (journal kept) or `cancelAndDelete` (files removed).
    case cancelled

    /// Whether no further transition can happen.
    public var isFinal: Bool { self == .completed || self == .failed || self == .cancelled }

    /// Whether a transfer is under way (a coordinator thread runs).
    public var isActive: Bool { self == .probing || self == .downloading }

    /// The state's name ("downloading").
    public var description: String { rawValue }

    /// The transitions the download makes, and no others.
    static let allowed: [DownloadState: Set<DownloadState>] = [
        .queued: [.probing, .paused, .failed, .cancelled], // failed: no thread could be started
        .probing: [.downloading, .completed, .paused, .failed, .cancelled],
        .downloading: [.probing, .completed, .paused, .failed, .cancelled],
        .paused: [.queued, .cancelled],
        .completed: [],
        .failed: [],
        .cancelled: [],
    ]

    func canChange(to next: DownloadState) -> Bool { DownloadState.allowed[self]?.contains(next) ?? false }
}
