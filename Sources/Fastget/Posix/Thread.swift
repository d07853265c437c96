internal import Glibc

/// A joinable POSIX thread running a Swift closure.
///
/// The closure travels to the new thread in a retained box through a `@convention(c)` trampoline;
/// handing a capturing closure to `pthread_create` directly crashes the Swift 6 compiler.
package final class PosixThread: @unchecked Sendable {
    private var handle: pthread_t
    private var joined = false

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread with `stackSize` bytes of stack.
    /// The corresponding C function is `pthread_create`.
    package init(stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if result != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: result)
        }
        handle = thread
    }

    /// Waits for the thread to finish. The corresponding C function is `pthread_join`.
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
    }

    deinit {
        if !joined { pthread_detach(handle) }
    }
}

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

/// A mutex with a condition variable, for waiting on a predicate over shared state.
/// The corresponding C functions are `pthread_mutex_*` and `pthread_cond_*`.
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
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
    package func wait(until deadline: Double) -> Bool {
        // A deadline an infinite or 1e300-second interval away is capped: converting it would trap.
        let latest = MonotonicClock.seconds() + MonotonicClock.forever
        let deadline = deadline.isNaN ? latest : min(deadline, latest)
        let whole = deadline.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
