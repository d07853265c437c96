import Synchronization

/// One file to download: probe, plan, parallel ranged transfer, and the final rename.
///
/// Create it with a URL, an optional destination and options; then either call `run()`, which
/// blocks the calling thread (it becomes the coordinator: it starts one thread per segment,
/// publishes events and returns when the file is complete), or `start()`, which does the same
/// on a thread of its own, and `await result()`. `pause`, `resume`, `cancel` and
/// `cancelAndDelete` may be called from any thread at any time; see `DownloadState` for what
/// each does in each state.
///
/// ```swift
/// let download = try Download(url: "https://example.com/big.iso", destination: "/tmp/big.iso")
/// download.onEvent { event in
///     if case .progress(let progress) = event { print(progress.completedBytes) }
/// }
/// let report = try download.run()
/// ```
///
/// The library does not change signal dispositions. A process that uses it should ignore
/// `SIGPIPE` (TLS writes go through the socket, where `MSG_NOSIGNAL` cannot be applied).
public final class Download: Sendable {
    /// The URL as given (redirects are followed per run; see `DownloadReport.resource`).
    public let url: HTTPURL
    /// `options.mirrors`, parsed: other URLs of the same file.
    let mirrorURLs: [HTTPURL]
    /// The options it was created with.
    public let options: DownloadOptions
    /// Where the file is saved (its `.part` file and `.fastget` journal sit next to it). When
    /// neither a destination nor `options.output` was given, this is the URL's file name in
    /// `options.directory` until the probe, and the name the server's `Content-Disposition`
    /// gives (made safe) after it, when it gives one.
    public var destination: String { control.withLock { $0.destination } }
    /// Whether the destination was given (and no server may change it).
    let destinationGiven: Bool
    /// The session whose connections it uses; nil: a private one per run.
    let session: Session?
    /// `url` without credentials, as text: what a queue compares (once per download, not per
    /// comparison).
    let urlWithoutCredentials: String

    let control = Locked(Control())
    let proxies: ProxySettings
    let hub = EventHub()
    /// Signalled when a stop is asked for: wakes a wait between probe attempts.
    let stopped = WakeSignal()

    typealias StopRequest = DownloadStateMachine.StopRequest

    /// What the lock guards: the state machine, and what a run and a queue leave for the
    /// control calls (the transfer to stop, the probe to interrupt, the queue's hooks).
    struct Control: Sendable {
        var machine = DownloadStateMachine()
        var destination = ""
        var transfer: Transfer?
        /// What the probe of the current run is waiting on.
        var probing: ConnectionRegistry?
        /// The stop asked for during the current run (the machine's).
        var stop: StopRequest? { machine.stop }
        /// Set by a queue: where `resume` sends the download instead of starting it, what to
        /// call once a pause or the end has been told to every observer, and what to call when
        /// its bytes are all in and only the sync and rename are left.
        var scheduler: (@Sendable (Download) -> Void)?
        var settled: (@Sendable (Download) -> Void)?
        var finishing: (@Sendable (Download) -> Void)?
        /// Set by a queue: told when a server's name becomes the destination (old, new).
        var moved: (@Sendable (Download, String, String) -> Void)?
    }

    /// - Parameters:
    ///   - url: an `http` or `https` URL (without a scheme, `http` is assumed).
    ///   - destination: the output path; nil means `options.output`, else the URL's file name
    ///     in `options.directory`.
    ///   - options: connections, output, checks, credentials and limits for this download.
    ///   - session: connections, TLS sessions and the per-host cap shared with other downloads;
    ///     nil: its own, whose idle connections close when a run ends.
    /// - Throws: `FastgetError` with code `.usage` for a malformed URL or invalid options.
    public convenience init(
        url: String, destination: String? = nil, options: DownloadOptions = DownloadOptions(), session: Session? = nil
    ) throws(FastgetError) {
        try self.init(url: url, destination: destination, options: options, session: session, state: .queued)
    }

    /// `state` is `.paused` for a download a queue restores from its journal.
    convenience init(url: String, destination: String?, options: DownloadOptions, session: Session?, state: DownloadState) throws(FastgetError) {
        let parsed: HTTPURL
        do {
            parsed = try HTTPURL(url)
        } catch {
            throw FastgetError(.usage, "invalid URL '\(HTTPURL.redactingUserInfo(url))': \(error)")
        }
        try self.init(parsed: parsed, destination: destination, options: options, session: session, state: state)
    }

    init(parsed: HTTPURL, destination: String?, options: DownloadOptions, session: Session?, state: DownloadState) throws(FastgetError) {
        try options.validate()
        // The user name goes quoted into a Digest answer, where a CR, LF or NUL would end the
        // field: refused before any request, as the option's own check does.
        for user in [parsed.user, options.user].compactMap({ $0 }) where user.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw FastgetError(.usage, "the user name \(user == parsed.user ? "in the URL" : "given") must not contain a line break or NUL byte")
        }
        var options = options
        if options.timestamping { (options.replacesExistingFile, options.remoteTime) = (true, true) }
        mirrorURLs = try options.mirrors.map { (text: String) throws(FastgetError) -> HTTPURL in
            do {
                return try HTTPURL(text)
            } catch {
                throw FastgetError(.usage, "invalid mirror URL '\(HTTPURL.redactingUserInfo(text))': \(error)")
            }
        }
        do {
            proxies = try ProxySettings(explicit: options.proxy, noProxy: options.noProxy, useEnvironment: options.proxyFromEnvironment)
        } catch {
            throw FastgetError.from(error, url: parsed)
        }
        self.url = parsed
        self.options = options
        self.session = session
        urlWithoutCredentials = parsed.withoutCredentials.description
        destinationGiven = destination != nil || options.output != nil
        let path = destination ?? options.output ?? Download.derivedDestination(parsed, options)
        control.withLock {
            $0.destination = path
            $0.machine = DownloadStateMachine(state: state)
        }
    }

    private static func derivedDestination(_ url: HTTPURL, _ options: DownloadOptions) -> String {
        let name = FileName.derived(from: url)
        return options.directory == "." ? name : options.directory + "/" + name
    }

    /// The path the file is saved to when neither a destination nor `options.output` is given.
    public var defaultDestination: String { Download.derivedDestination(url, options) }

    /// The current state.
    public var state: DownloadState { control.withLock { $0.machine.state } }

    // MARK: - Observing

    /// Calls `handler` with every later event (see `DownloadEvent` for the order and threads),
    /// until the returned token is given to `removeHandler`. The handler should return quickly:
    /// it runs on the thread that delivers this download's events (the coordinator, during a
    /// run), and this download's later events, and its transfer, wait for it. Other downloads'
    /// events do not.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (DownloadEvent) -> Void) -> EventHandlerToken {
        EventHandlerToken(hub.add(handler))
    }

    /// Stops calling the handler `onEvent` returned `token` for, and lets go of it (and of what
    /// it captured). Called from a handler, no later call is made, not even for the event being
    /// delivered. Called on another thread, it does not wait: a call already running there
    /// finishes, and one the delivering thread decided on just before may still start; no call
    /// is decided after this returns. A token of another download or queue removes nothing.
    public func removeHandler(_ token: EventHandlerToken) { hub.remove(token.value) }

    // MARK: - Control

    /// Downloads the file on the calling thread, from a `queued` or `paused` state; returns the
    /// report once the file is complete under its final name. Throws the error that stopped it,
    /// or `.cancelled` ("download paused" / "download cancelled") after `pause` or `cancel`.
    /// On a download that already ended it returns or throws that outcome again; on one that is
    /// running elsewhere it throws `.usage`.
    ///
    /// `progress` and `notice` are shortcuts for the `.progress` and `.notice` events.
    ///
    /// It blocks the calling thread for the whole download: in async code, `start()` and
    /// `await result()` wait without blocking one.
    @available(*, noasync, message: "it blocks the thread for the whole download; use 'await result()'")
    @discardableResult
    public func run(
        progress: (DownloadProgress) -> Void = { _ in },
        notice: (String) -> Void = { _ in }
    ) throws(FastgetError) -> DownloadReport {
        try execute(resumingPaused: true, progress: progress, notice: notice)
    }

    /// `run`, except that a download paused before its thread got going stays paused.
    private func execute(
        resumingPaused: Bool, progress: (DownloadProgress) -> Void = { _ in },
        notice: (String) -> Void = { _ in }
    ) throws(FastgetError) -> DownloadReport {
        let (begin, drain) = control.withLock { control in
            let begin = control.machine.begin(resumingPaused: resumingPaused)
            switch begin {
            case .run(let events), .busy(_, let events): return (begin, hub.post(events))
            case .ended: return (begin, false)
            }
        }
        if drain { hub.drain() } // a run's events come on its own thread
        switch begin {
        case .ended(let outcome): return try outcome.get()
        case .busy(let state, _): throw FastgetError(.usage, "the download of \(url) is \(state) already")
        case .run: break
        }
        let result: Result<DownloadReport, FastgetError>
        do throws(FastgetError) {
            result = .success(try perform(progress: progress, notice: notice))
        } catch {
            result = .failure(error)
        }
        return try conclude(result).get()
    }

    /// Starts the download on a thread of its own and returns at once (from `queued` or
    /// `paused`; otherwise it does nothing). Follow it with events or `result()`.
    public func start() {
        start { body, cannotStart in
            do throws(SystemError) {
                try Runners.startThread(body)
            } catch {
                cannotStart(FastgetError(.localIO, "cannot start a download thread: \(error.reason)").caused(by: error))
            }
        }
    }

    /// `start` on a queue's kept threads.
    func start(on runners: Runners) {
        start { body, cannotStart in
            runners.submit(body) { cannotStart(FastgetError(.localIO, "cannot start a download thread: no thread could be started")) }
        }
    }

    /// `start`, with `launch` running its body on another thread, or calling `cannotStart` when
    /// it cannot (then, or later: a queue's thread may fail to start after this returns). The
    /// download then fails, unless it changed since (`DownloadStateMachine.failUnstarted`); its
    /// events go out as those of other changes made while nothing runs (`deliverLater`).
    private func start(launch: (_ body: @escaping @Sendable () -> Void, _ cannotStart: @escaping @Sendable (FastgetError) -> Void) -> Void) {
        let (startable, drain, since) = control.withLock { control in
            let (launch, events) = control.machine.start()
            return (launch, hub.post(events), control.machine.changes)
        }
        deliverLater(drain)
        guard startable else { return }
        launch({ [self] in _ = try? self.execute(resumingPaused: false) }) { [self] error in
            let drain = control.withLock { control -> Bool in
                let events = control.machine.failUnstarted(error, since: since)
                guard !events.isEmpty else { return false }
                return hub.post(events, then: { [self] in settle() })
            }
            deliverLater(drain)
        }
    }

    /// Stops the transfer and keeps it resumable: the workers stop, a last checkpoint is taken,
    /// the state becomes `paused` and `run` throws `.cancelled` ("download paused"). A queued
    /// download is paused before it starts. Nothing happens in other states.
    public func pause() { requestStop(.pause) }

    /// Continues a paused download: it becomes `queued` and starts (or, in a queue, starts when
    /// a slot is free). Nothing happens in other states.
    public func resume() {
        let (scheduler, resumed, drain) = control.withLock { control -> ((@Sendable (Download) -> Void)?, Bool, Bool) in
            guard let events = control.machine.resume() else { return (nil, false, false) }
            return (control.scheduler, true, hub.post(events))
        }
        guard resumed else { return }
        deliverLater(drain)
        if let scheduler { scheduler(self) } else { start() }
    }

    /// Stops the download for good and keeps the `.part` file and journal (a new download of the
    /// same URL and destination resumes). Nothing happens once it has ended.
    public func cancel() { requestStop(.cancel) }

    /// Stops the download for good and removes its `.part` file and journal. A completed file is
    /// never removed. Nothing happens once it has ended.
    public func cancelAndDelete() { requestStop(.cancelAndDelete) }

    private func requestStop(_ request: StopRequest) {
        enum Action {
            case none
            case stopRun(StopRequest, Transfer?, ConnectionRegistry?)
            /// Nothing ran: the change is told on a delivery thread (true: one must be started).
            case told(Bool)
        }
        let thenSettle: @Sendable () -> Void = { [self] in settle() }
        let action = control.withLock { control -> Action in
            switch control.machine.requestStop(request) {
            case .none:
                return .none
            case .stopRun(let stop):
                return .stopRun(stop, control.transfer, control.probing)
            case .changed(let events, let removingFiles):
                // Nothing runs: the files go under the lock, before anyone sees `cancelled`.
                if removingFiles { removeFiles(at: control.destination) }
                return .told(hub.post(events, then: thenSettle))
            }
        }
        stopped.signal()
        switch action {
        case .none:
            break
        case .stopRun(let stop, let transfer, let probing):
            probing?.stop()
            transfer?.control.stop(reason: stop.reason)
        case .told(let drain):
            deliverLater(drain)
        }
    }

    /// Starts delivering the hub's pending events on a thread of their own when `drain` says no
    /// delivery is under way: the caller's own call never runs an observer, which may take a
    /// lock the caller holds. The thread is this download's alone and ends with the delivery,
    /// so a handler that blocks holds up only its own download's events, never another's (a
    /// shared pool would make every download wait behind it). Control calls on a download
    /// that is not running are rare, and the hub runs at most one delivery at a time, so a
    /// download has at most one such thread.
    private func deliverLater(_ drain: Bool) {
        guard drain else { return }
        do throws(SystemError) {
            _ = try PosixThread(stackSize: 1 << 20) { [hub] in hub.drain() }
        } catch {
            hub.drain() // with no thread to be had, on this one: late events beat lost ones
        }
    }

    /// Lets a queue decide when a resumed download starts, and learn when it only has its sync
    /// and rename left (`finishing`) and when it has paused or ended (after every observer has
    /// been told).
    func schedule(
        with scheduler: @escaping @Sendable (Download) -> Void, moved: @escaping @Sendable (Download, String, String) -> Void,
        finishing: @escaping @Sendable (Download) -> Void, settled: @escaping @Sendable (Download) -> Void
    ) {
        control.withLock {
            $0.scheduler = scheduler
            $0.moved = moved
            $0.finishing = finishing
            $0.settled = settled
        }
    }

    private func settle() {
        control.withLock { $0.settled }?(self)
    }

    // MARK: - State

    /// Moves to `next` from the coordinator thread and tells the observers.
    func advance(to next: DownloadState) {
        if control.withLock({ hub.post($0.machine.advance(to: next)) }) { hub.drain() }
    }

    /// The end of a run: its outcome decides the state (paused, cancelled, completed or failed).
    /// Files go before the state changes, so an observer that sees `cancelled` sees them gone.
    private func conclude(_ result: Result<DownloadReport, FastgetError>) -> Result<DownloadReport, FastgetError> {
        let (next, removingFiles) = control.withLock { control in
            control.transfer = nil
            return control.machine.ending(result)
        }
        if removingFiles { removeFiles(at: destination) }
        let drain = control.withLock { control -> Bool in
            let events = control.machine.end(result, in: next)
            guard !events.isEmpty else { return false }
            // The queue learns of the end only once every observer has.
            return hub.post(events, then: { [self] in settle() })
        }
        if drain { hub.drain() }
        return result
    }

    /// Removes the `.part` file and journal, unless another download owns them now. Only
    /// fastget's: another program's `.part` and a file at the journal's name that is no
    /// journal of fastget's stay (a queued download made no request and took nothing over).
    private func removeFiles(at destination: String) {
        guard let lock = try? Download.own(destination) else { return }
        let files = SidecarFiles(destination)
        let keepsPart = files.partIsForeign(url: url.withoutCredentials.description)
        if files.hasJournal { try? FileSystem.remove(files.journal) }
        if !keepsPart && FileSystem.entryKind(files.part) == .regular { try? FileSystem.remove(files.part) }
        lock.release()
    }
}
