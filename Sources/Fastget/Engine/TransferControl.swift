import Synchronization

/// How a transfer stops: the flag its workers check between reads, the first failure and why
/// it stopped, the connections to shut down so that blocked workers return, and the wake-ups of
/// the coordinator and of workers waiting out a back-off. Workers touch only the atomic on the
/// data path; the locks guard rare events.
final class TransferControl: Sendable {
    /// Wakes the coordinator early (a worker ended, or the transfer was stopped).
    let wake = WakeSignal()
    /// The connections the workers are using.
    let connections = ConnectionRegistry()

    private let stopped = Atomic<Bool>(false)
    /// Where `sleep(seconds:)` waits; a stop or a `nudge()` wakes every sleeper.
    private let sleepers = Monitor()
    /// Counts `nudge()` calls: a sleeper that sees it change returns early.
    private let nudges = Atomic<Int>(0)
    private let firstFailure = Locked<FastgetError?>(nil)
    private let stopMessage = Locked<String>("download cancelled")
    private let changed = Atomic<Bool>(false)
    private let lostRanges = Atomic<Bool>(false)

    var isStopped: Bool { stopped.load(ordering: .acquiring) }
    /// Whether it was stopped from outside (`stop(reason:)`: Ctrl-C, `--max-time`, cancel), not
    /// by a failure of its own.
    var isInterrupted: Bool { interrupted.load(ordering: .acquiring) }
    private let interrupted = Atomic<Bool>(false)
    /// The first failure, if any.
    var failure: FastgetError? { firstFailure.withLock { $0 } }
    /// Why `stop(reason:)` was called ("download paused", "download cancelled").
    var stopReason: String { stopMessage.withLock { $0 } }
    /// Whether a worker found that the file on the server is no longer the one being fetched.
    var resourceChanged: Bool { changed.load(ordering: .acquiring) }
    /// Whether the server stopped honouring byte ranges (a 200 to a range request).
    var rangesLost: Bool { lostRanges.load(ordering: .acquiring) }

    func stop(reason: String) {
        stopMessage.withLock { $0 = reason }
        interrupted.store(true, ordering: .releasing)
        stop()
    }

    /// Records the first failure and stops every worker.
    func fail(_ error: FastgetError) {
        firstFailure.withLock { if $0 == nil { $0 = error } }
        stop()
    }

    /// Records that the file changed on the server and stops the workers.
    func failBecauseChanged(_ error: FastgetError) {
        changed.store(true, ordering: .releasing)
        fail(error)
    }

    /// Records that ranges no longer work and stops the workers.
    func failBecauseRangesLost(_ error: FastgetError) {
        lostRanges.store(true, ordering: .releasing)
        fail(error)
    }

    /// Stops the workers: sets the flag they check between reads, shuts down the connections
    /// they may be blocked on, and wakes those waiting in `sleep(seconds:)` and the coordinator.
    func stop() {
        stopped.store(true, ordering: .releasing)
        connections.stop()
        sleepers.locked { sleepers.broadcast() }
        wake.signal()
    }

    /// Waits up to `seconds` (a back-off, an idle worker's poll); returns early on a stop or a
    /// `nudge()`.
    func sleep(seconds: Double) {
        guard seconds > 0 else { return } // also NaN: nothing to wait for
        let deadline = MonotonicClock.seconds() + seconds
        sleepers.locked {
            let seen = nudges.load(ordering: .relaxed)
            while !isStopped && nudges.load(ordering: .relaxed) == seen {
                if !sleepers.wait(until: deadline) { return }
            }
        }
    }

    /// Wakes every `sleep(seconds:)` without stopping: the last segment is complete, and the
    /// idle workers can end now instead of at their next look.
    func nudge() {
        sleepers.locked {
            nudges.add(1, ordering: .relaxed)
            sleepers.broadcast()
        }
    }
}
