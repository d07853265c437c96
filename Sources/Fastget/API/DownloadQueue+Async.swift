// The async face of `DownloadQueue`; left out of the static command-line build, as
// Download+Async.swift is.
#if !FASTGET_NO_CONCURRENCY
extension DownloadQueue {
    /// The most events `events()` holds for a consumer that has not read them.
    public static let eventBufferLimit = 1024

    /// Every later event of every download in the queue, with its download, as an async
    /// sequence: what `onEvent` gives a handler (downloads restored from journals included).
    /// It finishes when the consumer stops iterating (a queue has no last event).
    ///
    /// It holds at most `DownloadQueue.eventBufferLimit` events that have not been consumed:
    /// one who falls further behind loses the oldest, so a stream nobody reads cannot grow
    /// without bound.
    public func events() -> AsyncStream<(Download, DownloadEvent)> {
        let (stream, continuation) = AsyncStream<(Download, DownloadEvent)>.makeStream(
            bufferingPolicy: .bufferingNewest(DownloadQueue.eventBufferLimit))
        let token = onEvent { download, event in continuation.yield((download, event)) }
        continuation.onTermination = { [weak self] _ in self?.removeHandler(token) }
        return stream
    }

    /// Waits until no download is queued or running (returns at once when none is), without
    /// blocking a thread: the async `waitUntilIdle()`. A paused download does not keep the
    /// queue busy.
    /// - Throws: `CancellationError` when the waiting task is cancelled before the queue goes
    ///   idle, or was cancelled when it called this (the downloads go on).
    public func idle() async throws(CancellationError) {
        let number = newIdleWait()
        let wentIdle = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                addIdleWaiter(number, cancelled: { Task.isCancelled }) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            endIdleWait(number)
        }
        if !wentIdle { throw CancellationError() }
    }
}
#endif

/// The idle waits `idle()` registers, ended by the queue once nothing is queued or running.
extension DownloadQueue {
    /// A number for a new `idle()` wait.
    func newIdleWait() -> Int {
        state.withLock { entries in
            entries.lastWaiter += 1
            return entries.lastWaiter
        }
    }

    /// Registers `waiter` as wait `number`, or calls it at once: with false when `cancelled`
    /// says the wait is cancelled already, else with true when the queue is idle.
    func addIdleWaiter(_ number: Int, cancelled: @Sendable () -> Bool, _ waiter: @escaping @Sendable (Bool) -> Void) {
        let now = state.withLock { entries -> Bool? in
            if cancelled() { return false }
            if entries.isIdle { return true }
            entries.idleWaiters[number] = waiter
            return nil
        }
        if let now { waiter(now) }
    }

    /// How many `idle()` waits are registered and have not ended (for tests: the task of a wait
    /// counted here is suspended on it, or about to be).
    var idleWaitCount: Int { state.withLock { $0.idleWaiters.count } }

    /// Ends the wait numbered `number` as cancelled, unless it has ended.
    func endIdleWait(_ number: Int) {
        state.withLock { $0.idleWaiters.removeValue(forKey: number) }?(false)
    }
}
