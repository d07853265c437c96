/// A value guarded by a `Monitor`'s `pthread_mutex_t` (the one lock wrapper).
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer intercepts pthread mutexes:
/// with `Mutex` (futex-based, in an uninstrumented library) it reports races between accesses
/// that the lock in fact orders, which would drown real reports. Never on the data path.
package final class Locked<Value>: @unchecked Sendable {
    private let monitor = Monitor()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try monitor.locked { try body(&value) }
    }
}
