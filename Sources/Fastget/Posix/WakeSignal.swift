/// A flag with a condition variable: threads wait (with a bound) until it is signalled.
///
/// Used for the coordinator's wake-ups and interruptible back-off sleeps; never on the data path.
package final class WakeSignal: @unchecked Sendable {
    private let monitor = Monitor()
    private var pending = false // guarded by `monitor`

    package init() {}

    /// Wakes one waiter, or the next one to wait.
    package func signal() {
        monitor.locked {
            pending = true
            monitor.broadcast()
        }
    }

    /// Waits until signalled or until `seconds` pass; returns whether it was signalled.
    /// Consumes the signal.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        let deadline = MonotonicClock.seconds() + seconds
        return monitor.locked {
            while !pending {
                if !monitor.wait(until: deadline) { break }
            }
            let signalled = pending
            pending = false
            return signalled
        }
    }
}
