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
    /// The options it was created with.
    public let options: DownloadOptions
    /// Where the file is saved (its `.part` file and `.fastget` journal sit next to it). When
    /// neither a destination nor `options.output` was given, this is the URL's file name in
    /// `options.directory` until the probe, and the name the server's `Content-Disposition`
    /// gives (made safe) after it, when it gives one.
    public var destination: String { control.withLock { $0.destination } }
    /// Whether the destination was given (and no server may change it).
    private let destinationGiven: Bool

    private let control = Locked(Control())
    private let proxies: ProxySettings
    private let hub = EventHub()

    private enum StopRequest: Sendable { case pause, cancel, cancelAndDelete }

    private struct Control: Sendable {
        var destination = ""
        var state: DownloadState = .queued
        var transfer: Transfer?
        var stop: StopRequest?
        var outcome: Result<DownloadReport, FastgetError>?
        /// Set by a queue: where `resume` sends the download instead of starting it, and what to
        /// call once a pause or the end has been told to every observer.
        var scheduler: (@Sendable (Download) -> Void)?
        var settled: (@Sendable (Download) -> Void)?
    }

    /// - Parameters:
    ///   - url: an `http` or `https` URL (without a scheme, `http` is assumed).
    ///   - destination: the output path; nil means `options.output`, else the URL's file name
    ///     in `options.directory`.
    /// - Throws: `FastgetError` with code `.usage` for a malformed URL or invalid options.
    public convenience init(url: String, destination: String? = nil, options: DownloadOptions = DownloadOptions()) throws(FastgetError) {
        try self.init(url: url, destination: destination, options: options, state: .queued)
    }

    /// `state` is `.paused` for a download a queue restores from its journal.
    init(url: String, destination: String?, options: DownloadOptions, state: DownloadState) throws(FastgetError) {
        let parsed: HTTPURL
        do {
            parsed = try HTTPURL(url)
        } catch {
            throw FastgetError(.usage, "invalid URL '\(url)': \(error)")
        }
        try options.validate()
        proxies = try ProxySettings(explicit: options.proxy, noProxy: options.noProxy, useEnvironment: options.proxyFromEnvironment)
        self.url = parsed
        self.options = options
        destinationGiven = destination != nil || options.output != nil
        let path = destination ?? options.output ?? Download.derivedDestination(parsed, options)
        control.withLock {
            $0.destination = path
            $0.state = state
        }
    }

    private static func derivedDestination(_ url: HTTPURL, _ options: DownloadOptions) -> String {
        let name = FileName.derived(from: url)
        return options.directory == "." ? name : options.directory + "/" + name
    }

    /// The path the file is saved to when neither a destination nor `options.output` is given.
    public var defaultDestination: String { Download.derivedDestination(url, options) }

    /// The current state.
    public var state: DownloadState { control.withLock { $0.state } }

    // MARK: - Observing

    /// Calls `handler` with every later event (see `DownloadEvent` for the order and threads).
    /// The handler must return quickly: it runs on the coordinator thread.
    public func onEvent(_ handler: @escaping @Sendable (DownloadEvent) -> Void) {
        hub.add(handler)
    }

    /// Every later event as an async sequence; it finishes after the final event.
    public func events() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream()
        let registered = hub.add { event in
            continuation.yield(event)
            if event.isFinal { continuation.finish() }
        }
        continuation.onTermination = { [hub] _ in hub.remove(registered) }
        if state.isFinal { continuation.finish() }
        return stream
    }

    // MARK: - Control

    /// Downloads the file on the calling thread, from a `queued` or `paused` state; returns the
    /// report once the file is complete under its final name. Throws the error that stopped it,
    /// or `.cancelled` ("download paused" / "download cancelled") after `pause` or `cancel`.
    /// On a download that already ended it returns or throws that outcome again; on one that is
    /// running elsewhere it throws `.usage`.
    ///
    /// `progress` and `notice` are shortcuts for the `.progress` and `.notice` events.
    @discardableResult
    public func run(progress: (DownloadProgress) -> Void = { _ in },
                    notice: (String) -> Void = { _ in }) throws(FastgetError) -> DownloadReport {
        try execute(resumingPaused: true, progress: progress, notice: notice)
    }

    /// `run`, except that a download paused before its thread got going stays paused.
    private func execute(resumingPaused: Bool, progress: (DownloadProgress) -> Void = { _ in },
                         notice: (String) -> Void = { _ in }) throws(FastgetError) -> DownloadReport {
        enum Begin { case go, ended(Result<DownloadReport, FastgetError>), busy(DownloadState) }
        let (begin, events) = control.withLock { control -> (Begin, [DownloadEvent]) in
            if let outcome = control.outcome { return (.ended(outcome), []) }
            var events: [DownloadEvent] = []
            if resumingPaused, control.state == .paused, change(&control, to: .queued) { events.append(.stateChanged(.queued)) }
            guard control.state == .queued else { return (.busy(control.state), []) }
            control.stop = nil
            _ = change(&control, to: .probing)
            return (.go, events + [.stateChanged(.probing)])
        }
        events.forEach(hub.publish)
        switch begin {
        case .ended(let outcome): return try outcome.get()
        case .busy(let state): throw FastgetError(.usage, "the download of \(url) is \(state) already")
        case .go: break
        }
        let result: Result<DownloadReport, FastgetError>
        do throws(FastgetError) {
            result = .success(try perform(progress: progress, notice: notice))
        } catch {
            result = .failure(error)
        }
        return try finish(result).get()
    }

    /// Starts the download on a thread of its own and returns at once (from `queued` or
    /// `paused`; otherwise it does nothing). Follow it with events or `result()`.
    public func start() {
        let startable = control.withLock { control in
            if control.state == .paused, change(&control, to: .queued) { return (true, true) }
            return (control.state == .queued, false)
        }
        if startable.1 { hub.publish(.stateChanged(.queued)) }
        guard startable.0 else { return }
        do {
            _ = try PosixThread(stackSize: 1 << 20) { [self] in _ = try? self.execute(resumingPaused: false) }
        } catch {
            _ = finish(.failure(FastgetError(.localIO, "cannot start a download thread: \(error.reason)")))
        }
    }

    /// Starts the download if it is queued or paused (one in a `DownloadQueue` starts when the
    /// queue gives it a slot), then waits for its final state: returns
    /// the report when it completed, throws the error when it failed or `.cancelled` when it was
    /// cancelled. A pause does not end the wait; a later `resume` or `cancel` does.
    public func result() async throws(FastgetError) -> DownloadReport {
        let outcome: Result<DownloadReport, FastgetError> = await withCheckedContinuation { continuation in
            let delivered = Locked(false)
            let once: @Sendable (Result<DownloadReport, FastgetError>) -> Void = { outcome in
                let first = delivered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: outcome) }
            }
            hub.add { event in
                switch event {
                case .completed(let report): once(.success(report))
                case .failed(let error): once(.failure(error))
                case .cancelled: once(.failure(FastgetError(.cancelled, "download cancelled")))
                default: break
                }
            }
            let (outcome, managed) = control.withLock { ($0.outcome, $0.scheduler != nil) }
            if let outcome { once(outcome) }
            if !managed { start() } // in a queue, the queue decides when it starts
        }
        return try outcome.get()
    }

    /// Stops the transfer and keeps it resumable: the workers stop, a last checkpoint is taken,
    /// the state becomes `paused` and `run` throws `.cancelled` ("download paused"). A queued
    /// download is paused before it starts. Nothing happens in other states.
    public func pause() { requestStop(.pause) }

    /// Continues a paused download: it becomes `queued` and starts (or, in a queue, starts when
    /// a slot is free). Nothing happens in other states.
    public func resume() {
        let (scheduler, resumed) = control.withLock { control -> ((@Sendable (Download) -> Void)?, Bool) in
            guard control.state == .paused, change(&control, to: .queued) else { return (nil, false) }
            return (control.scheduler, true)
        }
        guard resumed else { return }
        hub.publish(.stateChanged(.queued))
        if let scheduler { scheduler(self) } else { start() }
    }

    /// Stops the download for good and keeps the `.part` file and journal (a new download of the
    /// same URL and destination resumes). Nothing happens once it has ended.
    public func cancel() { requestStop(.cancel) }

    /// Stops the download for good and removes its `.part` file and journal. A completed file is
    /// never removed. Nothing happens once it has ended.
    public func cancelAndDelete() { requestStop(.cancelAndDelete) }

    private func requestStop(_ request: StopRequest) {
        enum Action { case none, stopTransfer(Transfer?), pausedNow, cancelledNow }
        let action = control.withLock { control -> Action in
            if control.state.isActive {
                // A cancel overrides a pause asked for earlier; a pause does not undo a cancel.
                if control.stop == nil || request != .pause { control.stop = request }
                return .stopTransfer(control.transfer)
            }
            switch (control.state, request) {
            case (.queued, .pause):
                return change(&control, to: .paused) ? .pausedNow : .none
            case (.queued, _), (.paused, .cancel), (.paused, .cancelAndDelete):
                // Nothing runs: the files can go under the lock, before anyone sees `cancelled`.
                if request == .cancelAndDelete { removeFiles(at: control.destination) }
                guard change(&control, to: .cancelled) else { return .none }
                control.outcome = .failure(FastgetError(.cancelled, "download cancelled"))
                return .cancelledNow
            default:
                return .none
            }
        }
        switch action {
        case .none:
            break
        case .stopTransfer(let transfer):
            transfer?.stop(reason: request == .pause ? "download paused" : "download cancelled")
        case .pausedNow:
            hub.publish(.stateChanged(.paused))
            settle()
        case .cancelledNow:
            hub.publish(.stateChanged(.cancelled))
            hub.publish(.cancelled)
            settle()
        }
    }

    /// Lets a queue decide when a resumed download starts, and learn when it has paused or
    /// ended (after every observer has been told).
    func schedule(with scheduler: @escaping @Sendable (Download) -> Void, settled: @escaping @Sendable (Download) -> Void) {
        control.withLock {
            $0.scheduler = scheduler
            $0.settled = settled
        }
    }

    private func settle() {
        control.withLock { $0.settled }?(self)
    }

    // MARK: - State

    /// Changes the state if the transition is allowed; the caller publishes the event.
    private func change(_ control: inout Control, to next: DownloadState) -> Bool {
        guard control.state.canChange(to: next) else { return false }
        control.state = next
        return true
    }

    /// Moves to `next` from the coordinator thread and tells the observers.
    private func advance(to next: DownloadState) {
        if control.withLock({ change(&$0, to: next) }) { hub.publish(.stateChanged(next)) }
    }

    /// The end of a run: its outcome decides the state (paused, cancelled, completed or failed).
    /// Files go before the state changes, so an observer that sees `cancelled` sees them gone.
    private func finish(_ result: Result<DownloadReport, FastgetError>) -> Result<DownloadReport, FastgetError> {
        let (next, stop) = control.withLock { control -> (DownloadState, StopRequest?) in
            control.transfer = nil
            switch (result, control.stop) {
            case (.success, _): return (.completed, control.stop)
            case (.failure(let error), .pause) where error.code == .cancelled: return (.paused, control.stop)
            case (.failure(let error), .cancel), (.failure(let error), .cancelAndDelete):
                return (error.code == .cancelled ? .cancelled : .failed, control.stop)
            case (.failure, _): return (.failed, control.stop)
            }
        }
        if next == .cancelled && stop == .cancelAndDelete { removeFiles(at: destination) }
        let changed = control.withLock { control -> Bool in
            control.stop = nil
            guard change(&control, to: next) else { return false }
            if next.isFinal { control.outcome = result }
            return true
        }
        guard changed else { return result }
        hub.publish(.stateChanged(next))
        switch (next, result) {
        case (.completed, .success(let report)): hub.publish(.completed(report))
        case (.failed, .failure(let error)): hub.publish(.failed(error))
        case (.cancelled, _): hub.publish(.cancelled)
        default: break
        }
        settle()
        return result
    }

    private func removeFiles(at destination: String) {
        try? FileSystem.remove(destination + ".part")
        try? FileSystem.remove(destination + ".fastget")
    }

    // MARK: - The transfer

    /// How many times a download starts over because the file changed on the server.
    static let maximumRestarts = 2

    private func perform(progress: (DownloadProgress) -> Void, notice: (String) -> Void) throws(FastgetError) -> DownloadReport {
        let started = MonotonicClock.seconds()
        let connector = Connector(connectTimeout: options.connectTimeout, ioTimeout: options.timeout,
                                  caFile: options.caFile, verifyPeer: !options.insecure, proxies: proxies)
        let pool = ConnectionPool()
        defer { pool.removeAll() }
        let requester = Requester(connector: connector, pool: pool, options: options, url: url)
        func tell(_ text: String) {
            notice(text)
            hub.publish(.notice(text))
        }
        if let descriptor = options.outputDescriptor {
            return try stream(to: descriptor, requester: requester, connector: connector, started: started, progress: progress, notice: tell)
        }
        var restarts = 0
        var singleStream = false
        while true {
            advance(to: .probing)
            let resource: RemoteResource
            do {
                resource = try Prober(requester: requester).probe(url)
            } catch {
                requester.events.take().forEach(hub.publish)
                throw FastgetError.from(error, url: url)
            }
            requester.events.take().forEach(hub.publish) // the probe's requests
            hub.publish(.sizeKnown(resource.length))
            try checkStopped()
            if !destinationGiven, let name = resource.contentDisposition.flatMap(FileName.fromContentDisposition) {
                let path = options.directory == "." ? name : options.directory + "/" + name
                control.withLock { $0.destination = path }
            }
            let destination = self.destination
            guard let start = try StartPoint.prepare(destination: destination, url: url, resource: resource,
                                                     options: options, singleStream: singleStream, notice: tell) else {
                let length = resource.length ?? 0
                let statistics = connector.statistics
                return DownloadReport(path: destination, bytes: length, seconds: MonotonicClock.seconds() - started,
                                      segments: 0, steals: 0, hedges: 0, hedgesLost: 0, connections: statistics.connections,
                                      fullHandshakes: statistics.fullHandshakes, resumedHandshakes: statistics.resumedHandshakes,
                                      retries: 0, resumedBytes: length, resource: resource)
            }
            let transfer = Transfer(requester: requester, originalURL: url, resource: resource, output: start.output, options: options,
                                    validator: start.segmented ? Validator(resource) : nil)
            let stop = control.withLock { control -> StopRequest? in
                control.transfer = transfer
                return control.stop
            }
            if let stop { transfer.stop(reason: stop == .pause ? "download paused" : "download cancelled") }
            defer { control.withLock { $0.transfer = nil } }
            advance(to: .downloading)
            hub.publish(.transferStarted(resource, segments: start.table.snapshot().map { ByteRange(start: $0.start, end: $0.end) },
                                         resumedBytes: start.resumedBytes))

            // One worker per unfinished segment, up to the segment count asked for; on resume a
            // journal may hold more segments (from steals) than workers.
            let workers = min(options.segments, max(1, start.table.unfinishedCount))
            let coordinator = Coordinator(transfer: transfer, table: start.table,
                                          buffers: BufferPool(count: start.segmented ? workers : 1, size: options.bufferSize),
                                          checkpointer: start.checkpointer, segmented: start.segmented, started: started)
            do {
                try coordinator.run(progress: { [hub] snapshot in
                    progress(snapshot)
                    hub.publish(.progress(snapshot))
                }, events: { [hub] events in events.forEach(hub.publish) })
            } catch where (transfer.resourceChanged || transfer.rangesLost) && restarts < Download.maximumRestarts {
                restarts += 1
                if transfer.rangesLost {
                    // The old bytes came from ranges the server still honoured; they are right,
                    // but a stream from zero cannot skip them, so they go.
                    singleStream = true
                    tell("\(error.message); downloading in one stream from the start")
                } else {
                    tell("\(error.message); starting over")
                }
                start.checkpointer?.remove()
                try? FileSystem.remove(start.output.partPath)
                continue
            }
            let length = start.segmented ? resource.length! : transfer.streamedLength.load(ordering: .acquiring)
            guard length >= 0, !start.segmented || start.table.isComplete else {
                throw FastgetError(.protocolViolation, "the transfer ended before the file was complete")
            }
            if let checksum = options.checksum {
                try verify(checksum, start, length: length, buffers: coordinator.buffers)
            }
            try start.output.finish(length: length)
            start.checkpointer?.remove()
            let statistics = connector.statistics
            return DownloadReport(path: destination, bytes: length, seconds: MonotonicClock.seconds() - started,
                                  segments: coordinator.buffers.count, steals: start.table.steals.load(ordering: .relaxed),
                                  hedges: start.table.hedgesWon.load(ordering: .relaxed),
                                  hedgesLost: start.table.hedgesLost.load(ordering: .relaxed),
                                  connections: statistics.connections, fullHandshakes: statistics.fullHandshakes,
                                  resumedHandshakes: statistics.resumedHandshakes,
                                  retries: transfer.retries.load(ordering: .relaxed),
                                  resumedBytes: start.resumedBytes, resource: resource)
        }
    }

    /// Units a stream is fetched in: small, so that the workers stay close to the head.
    static let streamUnit: Int64 = 512 * 1024

    /// `outputDescriptor`: the file goes out in order through a reorder window; no journal.
    private func stream(to descriptor: Int32, requester: Requester, connector: Connector, started: Double,
                        progress: (DownloadProgress) -> Void, notice: (String) -> Void) throws(FastgetError) -> DownloadReport {
        let resource: RemoteResource
        do {
            resource = try Prober(requester: requester).probe(url)
        } catch {
            requester.events.take().forEach(hub.publish)
            throw FastgetError.from(error, url: url)
        }
        requester.events.take().forEach(hub.publish)
        hub.publish(.sizeKnown(resource.length))
        try checkStopped()
        var options = self.options
        options.stealing = false
        options.hedging = false
        let segmented = resource.isSegmentable
        // Without ranges a retry would start again at byte 0, behind what already went out.
        if !segmented { options.retries = 0 }
        let length = resource.length ?? 0
        let ranges = segmented
            ? SegmentPlan.tiles(length: length, segments: Int(min(1 << 16, (length + Download.streamUnit - 1) / Download.streamUnit)),
                                minimumSize: Download.streamUnit)
            : [ByteRange(start: 0, end: length)]
        let workers = segmented ? min(options.segments, ranges.count) : 1
        let window = ReorderWindow(descriptor: descriptor,
                                   capacity: max(4 * options.bufferSize, 2 * workers * Int(Download.streamUnit)),
                                   checksum: options.checksum?.algorithm)
        let table = SegmentTable(ranges: ranges)
        let transfer = Transfer(requester: requester, originalURL: url, resource: resource, output: window, options: options,
                                validator: segmented ? Validator(resource) : nil)
        let stop = control.withLock { control -> StopRequest? in
            control.transfer = transfer
            return control.stop
        }
        if let stop { transfer.stop(reason: stop == .pause ? "download paused" : "download cancelled") }
        defer { control.withLock { $0.transfer = nil } }
        advance(to: .downloading)
        hub.publish(.transferStarted(resource, segments: segmented ? [ByteRange(start: 0, end: length)] : ranges, resumedBytes: 0))
        var coordinator = Coordinator(transfer: transfer, table: table, buffers: BufferPool(count: workers, size: options.bufferSize),
                                      checkpointer: nil, segmented: segmented, started: started)
        coordinator.window = window
        do {
            try coordinator.run(progress: { [hub] snapshot in
                progress(snapshot)
                hub.publish(.progress(snapshot))
            }, events: { [hub] events in events.forEach(hub.publish) })
        } catch where transfer.resourceChanged || transfer.rangesLost {
            // Bytes already went out: a stream cannot start over.
            throw FastgetError(.protocolViolation, "\(error.message); the bytes already written to the stream cannot be taken back")
        }
        let emitted = window.bytesEmitted
        let expected = segmented ? length : transfer.streamedLength.load(ordering: .acquiring)
        guard emitted == expected else {
            throw FastgetError(.protocolViolation, "the stream ended after \(emitted) of \(expected) bytes")
        }
        if let checksum = options.checksum, let actual = window.finishDigest(), actual != checksum.hex {
            throw FastgetError(.protocolViolation, "\(checksum.algorithm.rawValue) of the stream is \(actual), not \(checksum.hex)")
        }
        let statistics = connector.statistics
        return DownloadReport(path: "-", bytes: emitted, seconds: MonotonicClock.seconds() - started, segments: workers,
                              steals: 0, hedges: 0, hedgesLost: 0, connections: statistics.connections,
                              fullHandshakes: statistics.fullHandshakes, resumedHandshakes: statistics.resumedHandshakes,
                              retries: transfer.retries.load(ordering: .relaxed), resumedBytes: 0, resource: resource)
    }

    /// Reads the finished `.part` file back and compares its digest. A mismatch keeps the file
    /// as `.part` and drops the journal: its bytes are all there, and wrong, so a rerun fetches
    /// the file anew.
    private func verify(_ checksum: Checksum, _ start: StartPoint, length: Int64, buffers: BufferPool) throws(FastgetError) {
        let actual = try start.output.digest(checksum.algorithm, length: length, buffer: buffers.buffer(0))
        guard actual == checksum.hex else {
            start.checkpointer?.remove()
            throw FastgetError(.protocolViolation, "\(checksum.algorithm.rawValue) of \(start.output.partPath) is \(actual), not \(checksum.hex)",
                               hint: "the file is kept as \(start.output.partPath); run the same command to download it again")
        }
    }

    private func checkStopped() throws(FastgetError) {
        if let stop = control.withLock({ $0.stop }) {
            throw FastgetError(.cancelled, stop == .pause ? "download paused" : "download cancelled")
        }
    }
}
