// The async face of `Download`. The static command-line build (scripts/build-static.sh)
// leaves it out with FASTGET_NO_CONCURRENCY: the CLI never awaits, and without these
// functions the Swift concurrency runtime and libdispatch are not linked (0.7 MB).
#if !FASTGET_NO_CONCURRENCY
extension Download {
    /// The most events `events()` holds for a consumer that has not read them.
    public static let eventBufferLimit = 256

    /// Every later event as an async sequence; it finishes after the final event.
    ///
    /// It holds at most `Download.eventBufferLimit` events that have not been consumed: one
    /// who falls further behind loses the oldest (the final event, the newest, is always kept),
    /// so a stream nobody reads cannot grow without bound.
    public func events() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(Download.eventBufferLimit))
        let registered = hub.add { event in
            continuation.yield(event)
            if event.isFinal { continuation.finish() }
        }
        continuation.onTermination = { [hub] _ in hub.remove(registered) }
        if state.isFinal { continuation.finish() }
        return stream
    }

    /// Calls `handler` on the main actor with every later event, in order, until the returned
    /// token is given to `removeHandler`: it may update `@MainActor` state directly, and never
    /// runs on the coordinator thread or inside the caller's own call. Once removed (from the
    /// main actor), it is not called again, not even for events already on their way.
    ///
    /// Events wait for the main actor in a buffer of at most `Download.eventBufferLimit`: beyond
    /// that the oldest are dropped (the final event, the newest, is always kept).
    @discardableResult
    public func onEventOnMainActor(_ handler: @escaping @MainActor @Sendable (DownloadEvent) -> Void) -> EventHandlerToken {
        let (stream, removed, token) = deliveryStream()
        Task { @MainActor in
            for await event in stream {
                if removed.withLock({ $0 }) { break }
                handler(event)
            }
        }
        return token
    }

    /// Calls `handler` isolated to `actor` with every later event, in order, until the returned
    /// token is given to `removeHandler`: the handler may use the actor's state directly, and
    /// never runs on the coordinator thread or inside the caller's own call. Once removed (from
    /// the actor), it is not called again, not even for events already on their way. `actor`
    /// and `handler` are held until the final event, the removal, or the download's end (a
    /// handler that captures its download keeps it until one of the first two).
    ///
    /// Events wait for the actor in a buffer of at most `Download.eventBufferLimit`: beyond that
    /// the oldest are dropped (the final event, the newest, is always kept).
    @discardableResult
    public func onEvent<A: Actor>(
        on actor: A, _ handler: @escaping @Sendable (isolated A, DownloadEvent) -> Void
    ) -> EventHandlerToken {
        let (stream, removed, token) = deliveryStream()
        Task {
            for await event in stream {
                guard await Download.deliver(event, to: actor, unless: removed, handler) else { break }
            }
        }
        return token
    }

    /// Calls `handler` isolated to `actor` unless it was removed: checked on the actor, in the
    /// same turn as the call, so a removal made there is never passed by. Whether it was called.
    private static func deliver<A: Actor>(
        _ event: DownloadEvent, to actor: isolated A, unless removed: Locked<Bool>,
        _ handler: @Sendable (isolated A, DownloadEvent) -> Void
    ) -> Bool {
        if removed.withLock({ $0 }) { return false }
        handler(actor, event)
        return true
    }

    /// A bounded stream of every later event for a handler that runs elsewhere, finished by the
    /// final event or by `removeHandler` (which also sets `removed`, so events already in the
    /// stream are not handed out).
    private func deliveryStream() -> (AsyncStream<DownloadEvent>, removed: Locked<Bool>, EventHandlerToken) {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(Download.eventBufferLimit))
        let removed = Locked(false)
        let token = hub.add(
            { event in
                continuation.yield(event)
                if event.isFinal { continuation.finish() }
            },
            removed: {
                removed.withLock { $0 = true }
                continuation.finish()
            })
        if state.isFinal { continuation.finish() }
        return (stream, removed, EventHandlerToken(token))
    }

    /// Starts the download if it is queued or paused (one in a `DownloadQueue` starts when the
    /// queue gives it a slot), then waits for its final state: returns
    /// the report when it completed, throws the error when it failed or `.cancelled` when it was
    /// cancelled. A pause does not end the wait; a later `resume` or `cancel` does.
    ///
    /// Cancelling the task that awaits it cancels the download as `cancel()` does: it stops
    /// within a second and stays resumable (its `.part` file and journal are kept; a new
    /// download of the same URL and destination continues it), and this throws `.cancelled`.
    /// A download that completed first is returned. A task cancelled before it calls this
    /// throws `.cancelled` at once and leaves the download as it was: not started, not
    /// cancelled.
    public func result() async throws(FastgetError) -> DownloadReport {
        guard !Task.isCancelled else { throw FastgetError(.cancelled, "the task awaiting the download was cancelled") }
        let outcome = await withTaskCancellationHandler {
            await outcomeStartingIfIdle()
        } onCancel: {
            cancel()
        }
        return try outcome.get()
    }

    /// `dryRun()` for async code: the probe runs on a thread of its own, so no thread of the
    /// task's executor waits for the network. Cancelling the task does not stop the probe (its
    /// timeouts bound it); what it found is returned.
    public func dryRun() async throws(FastgetError) -> DownloadPlan {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<DownloadPlan, FastgetError>, Never>) in
            do throws(SystemError) {
                _ = try PosixThread(stackSize: 1 << 20) { [self] in
                    continuation.resume(returning: Result { () throws(FastgetError) in try self.dryRun() })
                }
            } catch {
                continuation.resume(
                    returning: .failure(FastgetError(.localIO, "cannot start a thread for the dry run: \(error.reason)").caused(by: error)))
            }
        }
        return try outcome.get()
    }

    /// Waits for the final state, starting the download unless a queue manages it.
    private func outcomeStartingIfIdle() async -> Result<DownloadReport, FastgetError> {
        await withCheckedContinuation { continuation in
            // The observer goes once the outcome is delivered: waiting again must not leave
            // one more observer behind each time.
            let delivered = Locked(false)
            let token = Locked<Int?>(nil)
            let once: @Sendable (Result<DownloadReport, FastgetError>) -> Void = { [hub] outcome in
                let first = delivered.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                if let registered = token.withLock({ $0 }) { hub.remove(registered) }
                continuation.resume(returning: outcome)
            }
            let registered = hub.add { event in
                switch event {
                case .completed(let report): once(.success(report))
                case .failed(let error): once(.failure(error))
                case .cancelled: once(.failure(FastgetError(.cancelled, "download cancelled")))
                default: break
                }
            }
            token.withLock { $0 = registered }
            if delivered.withLock({ $0 }) { hub.remove(registered) } // delivered before the token was known
            let (outcome, managed) = control.withLock { ($0.machine.outcome, $0.scheduler != nil) }
            if let outcome { once(outcome) }
            if !managed { start() } // in a queue, the queue decides when it starts
        }
    }
}
#endif
