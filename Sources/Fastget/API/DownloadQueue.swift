/// Downloads into one directory, at most `maximumActive` at a time, in the order they were added
/// (one whose bytes are all in is checked, synced and renamed while the next one downloads).
///
/// - Adding a URL that is already in the queue (queued, running or paused) returns that download
///   instead of a second one; a URL whose download has ended is added afresh.
/// - A download that pauses, completes, fails or is cancelled frees its slot for the next one.
/// - The queue survives a restart: a new queue on the same directory finds the journals
///   (`NAME.fastget`) left there and rebuilds their downloads as paused entries; `resumeAll()`
///   continues them from where they stopped.
///
/// Every method may be called from any thread.
public final class DownloadQueue: Sendable {
    /// Where files, `.part` files and journals go.
    public let directory: String
    /// How many downloads run at once, besides those whose bytes are all in and that are being
    /// checked, synced and renamed (up to as many again).
    public let maximumActive: Int
    /// The options each download gets (`output` and `directory` are set per download).
    public let options: DownloadOptions
    /// What the queue's downloads share: idle connections by origin, TLS sessions, the per-host
    /// cap. A queue given none makes its own and closes its idle connections whenever the queue
    /// goes idle (nothing queued or running), so that no connection outlives the work.
    public let session: Session
    private let ownsSession: Bool
    /// Whether a download that ended (completed, failed or was cancelled) stays in `downloads`
    /// until `remove`. When false it leaves once every handler has heard its end, and its
    /// destination stays claimed for the queue's life: a queue fed a list of millions holds
    /// only what has not ended (a few hundred bytes an ended file, against several KiB).
    public let keepsEndedDownloads: Bool

    /// The entries, under their lock (the idle waits in DownloadQueue+Async.swift use it too).
    let state = Locked(Entries())
    private let idle = WakeSignal()
    private let runners: Runners

    struct Entries: Sendable {
        var downloads: [Download] = []
        /// Downloads the queue started that have not yet paused or ended, and those of them
        /// with only their sync and rename left, which hold no slot.
        var launched: Set<ObjectIdentifier> = []
        var finishing: Set<ObjectIdentifier> = []
        /// What `onEvent` registered (by token): every download of the queue tells them.
        var observers: [Int: @Sendable (Download, DownloadEvent) -> Void] = [:]
        /// `pauseAll` was called and `resumeAll` was not since: what is added waits paused.
        var holding = false
        /// Where `pump` starts looking: every download before it had ended, was launched or
        /// was paused when last looked at. One that is paused goes back to the queue through
        /// its scheduler (`requeue`), which looks from the start again; so a list of thousands
        /// is not read from its first entry at every start and every end.
        var next = 0
        /// Downloads `pump` has looked at, in all (for tests).
        var looked = 0
        /// A thread is in `pump`, and another asked for one meanwhile.
        var pumping = false
        var pumpAgain = false
        /// What `idle()` waits on, by number: called with true when the queue is idle, false
        /// when the wait was cancelled. (Closures: the static build has no concurrency types.)
        var idleWaiters: [Int: @Sendable (Bool) -> Void] = [:]
        var lastWaiter = 0
        /// The queue's downloads by URL (without credentials; two only when journals of one URL
        /// were restored), and by the destination each saves to now, ended ones included (a
        /// server's name moves a download's claim: `moved`). Kept by `insert` and `delete`.
        var byURL: [String: [Download]] = [:]
        var byDestination: [String: [Download]] = [:]
        /// Without `keepsEndedDownloads`: the destinations of ended downloads that left, with
        /// their URL (without credentials) and which download it was (only its `remove` frees
        /// the name: an older one of the same URL is stale), and those still in `downloads`
        /// until the next sweep (`forget`).
        var endedClaims: [String: (url: String, owner: ObjectIdentifier)] = [:]
        var forgotten: Set<ObjectIdentifier> = []

        /// No download is queued or running.
        var isIdle: Bool { launched.isEmpty && !downloads.contains { $0.state == .queued || $0.state.isActive } }
    }

    /// - Parameters:
    ///   - directory: where files, `.part` files and journals go.
    ///   - maximumActive: downloads running at once (at least 1). A download whose bytes are all
    ///     in no longer counts while it is checked, synced and renamed: the next one starts
    ///     meanwhile (so its events may come before the first one's `completed`).
    ///   - options: the options of every download added (each saves into `directory`).
    ///   - restore: rebuild paused entries from the journals in `directory`.
    ///   - session: shared with other downloads and queues; nil: the queue's own.
    ///   - keepsEnded: whether ended downloads stay in `downloads` (`keepsEndedDownloads`).
    /// - Throws: `.usage` for a limit below 1 or invalid options.
    public convenience init(
        directory: String, maximumActive: Int = 3, options: DownloadOptions = DownloadOptions(),
        restore: Bool = true, session: Session? = nil, keepsEnded: Bool = true
    ) throws(FastgetError) {
        try self.init(
            directory: directory, maximumActive: maximumActive, options: options, restore: restore, session: session,
            keepsEnded: keepsEnded, spawn: Runners.startThread)
    }

    /// `spawn`: how the queue's threads are started (a test makes it fail).
    init(
        directory: String, maximumActive: Int, options: DownloadOptions, restore: Bool, session: Session?,
        keepsEnded: Bool = true, spawn: @escaping Runners.Spawn
    ) throws(FastgetError) {
        guard maximumActive >= 1 else { throw FastgetError(.usage, "a queue needs at least one active download (got \(maximumActive))") }
        try options.validate()
        self.directory = directory
        self.maximumActive = maximumActive
        self.session = session ?? (try! Session()) // its own: its own worker threads too
        runners = Runners(limit: maximumActive > Int.max / 2 ? Int.max : 2 * maximumActive, spawn: spawn) // as many again for files syncing
        ownsSession = session == nil
        keepsEndedDownloads = keepsEnded
        var options = options
        options.directory = directory
        options.output = nil
        self.options = options
        if restore { self.restore() }
    }

    /// Every download in the queue, in the order they were added (restored ones first).
    public var downloads: [Download] { state.withLock { $0.listed } }

    /// Calls `handler` with every later event of every download in the queue, those restored
    /// from journals included, and with every event of a download added from now on, from its
    /// first: a download that ends as soon as it starts (a file already complete) is seen too,
    /// which `Download.onEvent` called after `add` may miss. Called on the download's threads
    /// (see `DownloadEvent`), until the returned token is given to `removeHandler`.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (Download, DownloadEvent) -> Void) -> EventHandlerToken {
        let token = EventHub.newToken()
        state.withLock { $0.observers[token] = handler }
        return EventHandlerToken(token)
    }

    /// Stops calling the handler `onEvent` returned `token` for, and lets go of it. Called from a
    /// handler, no later call is made, not even for the event being delivered. Called on another
    /// thread, it does not wait: a call already running there finishes, and one a delivering
    /// thread decided on just before may still start; no call is decided after this returns.
    public func removeHandler(_ token: EventHandlerToken) {
        _ = state.withLock { $0.observers.removeValue(forKey: token.value) }
    }

    /// Adds `url` (saved as `destination`, else its file name in the queue's directory) and
    /// starts it when a slot is free. Returns the download already in the queue for the same URL
    /// when there is one that has not ended (resuming it if it was paused).
    /// - Throws: `.cannotCreateOutput` when another URL in the queue saves to the same destination
    ///   (`…/a.bin` and `…/a.bin?x`), ended or not: two downloads never share files, and a later
    ///   one never replaces what an earlier one saved (`remove` an ended download to free its
    ///   name; with `keepsEndedDownloads` false, the last download saved there). (Names a
    ///   server gives with `Content-Disposition` are known only later; the download's lock
    ///   refuses a clash among those when it happens.)
    @discardableResult
    public func add(_ url: String, destination: String? = nil, mirrors: [String] = []) throws(FastgetError) -> Download {
        try add(contentsOf: [Entry(url, destination: destination, mirrors: mirrors)])[0]
    }

    /// One download to add with `add(contentsOf:)`.
    public struct Entry: Sendable {
        /// The URL to download (credentials in it are used as `Download(url:)` uses them).
        public var url: String
        /// Where to save it; nil: its file name in the queue's directory.
        public var destination: String?
        /// Other URLs of the same file, besides the queue's options' mirrors.
        public var mirrors: [String]

        /// An entry for `url`, saved as `destination` (nil: its name in the queue's directory).
        public init(_ url: String, destination: String? = nil, mirrors: [String] = []) {
            (self.url, self.destination, self.mirrors) = (url, destination, mirrors)
        }
    }

    /// Adds every entry, or none: each is checked first (its URL and options, and that no two
    /// URLs, of the queue or of `entries`, save to one destination), and one that fails leaves
    /// the queue as it was, nothing added and nothing started. Each entry is then added as
    /// `add(_:destination:mirrors:)` adds it; an entry whose URL is in the queue, or earlier in
    /// `entries`, gives that download.
    /// - Returns: the downloads, one per entry, in order.
    /// - Throws: the first entry that is no valid download's error, else the first clash's.
    @discardableResult
    public func add(contentsOf entries: [Entry]) throws(FastgetError) -> [Download] {
        let holding = state.withLock { $0.holding }
        var candidates: [Download] = []
        for entry in entries {
            var options = options
            options.mirrors += entry.mirrors
            let candidate = try Download(
                url: entry.url, destination: entry.destination, options: options, session: session, state: holding ? .paused : .queued)
            // Before anything can start it (a resume below pumps the queue); its hooks hold the
            // queue weakly, so a candidate left out costs nothing.
            manage(candidate)
            candidates.append(candidate)
        }
        let outcome = state.withLock { queue -> Result<[Download], FastgetError> in
            DownloadQueue.place(candidates, in: &queue).map { placing in
                placing.added.forEach(tell(about:))
                return placing.placed
            }
        }
        let placed = try outcome.get()
        let added = Set(candidates.map(ObjectIdentifier.init))
        var done = Set<ObjectIdentifier>()
        for download in placed where done.insert(ObjectIdentifier(download)).inserted {
            // Whether `pauseAll` holds the queue now, not when the entries were made.
            let hold = state.withLock { $0.holding }
            if added.contains(ObjectIdentifier(download)) {
                if hold { download.pause() } else { download.resume() } // as made, unless that changed
            } else if !hold {
                download.resume()
            }
        }
        pump()
        return placed
    }

    /// Pauses every download (running ones checkpoint and stop; queued ones wait), and those
    /// added from now on until `resumeAll()`: a stop (Ctrl-C) that comes while a list is being
    /// added starts nothing more.
    public func pauseAll() {
        let downloads = state.withLock { entries in
            entries.holding = true
            return entries.downloads
        }
        downloads.forEach { $0.pause() }
    }

    /// Resumes every paused download; they start as slots free up.
    public func resumeAll() {
        state.withLock { $0.holding = false }
        downloads.forEach { $0.resume() }
        pump()
    }

    /// Cancels every download that has not ended, keeping their journals.
    public func cancelAll() { downloads.forEach { $0.cancel() } }

    /// Takes `download` out of the queue, cancelling it if it has not ended; with
    /// `deletingFiles` its `.part` file and journal go too (a completed file stays).
    public func remove(_ download: Download, deletingFiles: Bool = false) {
        if deletingFiles { download.cancelAndDelete() } else { download.cancel() }
        state.withLock { entries in
            entries.unclaim(download)
            entries.delete(download) // resets the scan's start too
            entries.launched.remove(ObjectIdentifier(download))
            entries.finishing.remove(ObjectIdentifier(download))
        }
        pump()
    }

    /// Blocks until no download is queued or running, or `timeout` seconds pass; returns whether
    /// the queue went idle. In async code, `await idle()` waits without blocking a thread.
    @available(*, noasync, message: "it blocks the thread; use 'await idle()'")
    @discardableResult
    public func waitUntilIdle(timeout: Double = .infinity) -> Bool {
        let deadline = MonotonicClock.seconds() + timeout
        while !isIdle {
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { return false }
            idle.wait(seconds: min(left, 1))
        }
        return true
    }

    /// How many downloads the queue has looked at to find the next to start (for tests).
    var lookedAt: Int { state.withLock { $0.looked } }

    /// No download is queued or running.
    public var isIdle: Bool { state.withLock { $0.isIdle } }

    // MARK: - Scheduling

    /// Frees `download`'s slot once it has paused or ended (and every observer has heard), and
    /// lets the queue start it when resumed.
    private func manage(_ download: Download) {
        download.schedule(
            with: { [weak self] _ in self?.requeue() },
            moved: { [weak self] download, old, new in self?.moved(download, from: old, to: new) },
            finishing: { [weak self] download in
                guard let self else { return }
                self.state.withLock { entries in
                    if entries.launched.contains(ObjectIdentifier(download)) { entries.finishing.insert(ObjectIdentifier(download)) }
                }
                self.pump()
            },
            settled: { [weak self] download in
                guard let self else { return }
                // A download resumed by an observer as it paused is queued again while still
                // launched, and `pump` passed it by: look from the start again.
                let again = !download.state.isFinal
                self.state.withLock { entries in
                    entries.launched.remove(ObjectIdentifier(download))
                    entries.finishing.remove(ObjectIdentifier(download))
                    if again { entries.next = 0 }
                    if !again && !self.keepsEndedDownloads { entries.forget(download) }
                }
                self.pump()
                if self.ownsSession && self.isIdle { self.session.closeIdleConnections() }
            })
    }

    /// A paused download became queued again (`resume`): it may be before `next`.
    private func requeue() {
        state.withLock { $0.next = 0 }
        pump()
    }

    /// Starts queued downloads, oldest first, while slots are free.
    private func pump() {
        // One thread pumps at a time; a call meanwhile has it look once more. A start that fails
        // at once (no thread) settles its download, which pumps: without this, a list whose
        // threads cannot be started would recurse once for each of its downloads.
        guard state.withLock({ $0.beginPump() }) else { return }
        var wentIdle = false
        repeat {
            let starting: [Download]
            (starting, wentIdle) = state.withLock { entries in
                let starting = entries.startable(maximumActive: maximumActive)
                // Only a queue that went idle wakes `waitUntilIdle`, not every start and end.
                return (starting, starting.isEmpty && entries.isIdle)
            }
            starting.forEach { $0.start(on: runners) }
        } while state.withLock { $0.endPump() }
        if wentIdle { idle.signal() }
        wakeIdleWaiters()
    }

    /// Ends the `idle()` waits once nothing is queued or running.
    private func wakeIdleWaiters() {
        let waiters = state.withLock { entries -> [@Sendable (Bool) -> Void] in
            guard !entries.idleWaiters.isEmpty, entries.isIdle else { return [] }
            defer { entries.idleWaiters = [:] }
            return Array(entries.idleWaiters.values)
        }
        for waiter in waiters { waiter(true) }
    }

    /// Hands the queue's handlers every event of `download` (registered before it can start).
    /// Neither is kept alive by it.
    private func tell(about download: Download) {
        download.onEvent { [weak self, weak download] event in
            guard let self, let download else { return }
            let tokens = self.state.withLock { $0.observers.keys.sorted() }
            // Looked up again right before each call: one removed meanwhile is not called.
            for token in tokens {
                if let observer = self.state.withLock({ $0.observers[token] }) { observer(download, event) }
            }
        }
    }

    /// Rebuilds a paused download for every journal in the directory that can be read.
    private func restore() {
        guard let names = try? FileSystem.list(directory) else { return }
        for name in names.sorted() {
            guard let files = SidecarFiles.owning(journal: directory + "/" + name),
                case .success(let journal) = Checkpointer.load(files.journal),
                let download = try? Download(
                    url: journal.url, destination: files.destination,
                    options: options, session: session, state: .paused)
            else { continue }
            state.withLock { $0.insert(download) }
            tell(about: download)
            manage(download)
        }
    }
}
