// The async face of `Download`. The static command-line build (scripts/build-static.sh)
// leaves it out with FASTGET_NO_CONCURRENCY: the CLI never awaits, and without these two
// functions the Swift concurrency runtime and libdispatch are not linked (0.7 MB).
#if !FASTGET_NO_CONCURRENCY
extension Download {
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
}
#endif
