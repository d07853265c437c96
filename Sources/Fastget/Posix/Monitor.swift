internal import Glibc

/// A mutex with a condition variable, for waiting on a predicate over shared state.
/// The corresponding C functions are `pthread_mutex_*` and `pthread_cond_*`.
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        Monitor.initialize(condition)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the mutex held (inside `locked`): waits until signalled or until the monotonic
    /// clock passes `deadline`; returns false on the deadline.
    @discardableResult
    package func wait(until deadline: Double) -> Bool { Monitor.wait(condition, mutex, until: deadline) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// A further condition variable, waited on with this monitor's mutex: one for each waiting
    /// thread lets a wake go to the thread chosen (a broadcast to its only waiter) instead of
    /// waking every thread to find the one that has work.
    package final class Condition: @unchecked Sendable {
        fileprivate let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

        package init() { Monitor.initialize(condition) }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
    }

    /// `wait(until:)` on `condition` instead of the monitor's own.
    package func wait(on condition: Condition, until deadline: Double) -> Bool {
        Monitor.wait(condition.condition, mutex, until: deadline)
    }

    /// Wakes every waiter on `condition`.
    package func broadcast(_ condition: Condition) { pthread_cond_broadcast(condition.condition) }

    private static func initialize(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    private static func wait(
        _ condition: UnsafeMutablePointer<pthread_cond_t>, _ mutex: UnsafeMutablePointer<pthread_mutex_t>, until deadline: Double
    ) -> Bool {
        // A deadline an infinite or 1e300-second interval away is capped: converting it would trap.
        let latest = MonotonicClock.seconds() + MonotonicClock.forever
        let deadline = deadline.isNaN ? latest : min(deadline, latest)
        let whole = deadline.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }
}
