internal import Glibc

/// A value guarded by a `pthread_mutex_t` (the one lock wrapper): a mutex alone, without the
/// condition variable a `Monitor` adds, since a download makes a dozen of these.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer intercepts pthread mutexes:
/// with `Mutex` (futex-based, in an uninstrumented library) it reports races between accesses
/// that the lock in fact orders, which would drown real reports. Never on the data path.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
