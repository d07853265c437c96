internal import Glibc

/// Names this process can use without meeting another process's.
package enum ProcessIdentity {
    private static let counter = Locked(0)

    /// "<pid>-<n>", different at every call within this process and from every other live
    /// process's. The corresponding C function is `getpid`.
    package static func uniqueSuffix() -> String {
        let n = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "\(getpid())-\(n)"
    }
}
