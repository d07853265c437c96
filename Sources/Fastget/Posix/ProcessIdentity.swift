internal import Glibc

/// Names this process can use without meeting another process's.
package enum ProcessIdentity {
    private static let counter = Locked(0)

    /// The most bytes `uniqueSuffix()` has: a pid of at most 10 digits (`pid_t` is 32 bits),
    /// "-", and a counter of at most 6. Names built on it stay within `NAME_MAX`.
    package static let longestSuffixBytes = 10 + 1 + 6

    /// "<pid>-<n>", different from every other live process's, and within this process from
    /// the last 999,999 calls: the counter wraps, so that the name's length is bounded. A
    /// caller creates the file it names exclusively, which catches a name still in use after
    /// a wrap. The corresponding C function is `getpid`.
    package static func uniqueSuffix() -> String {
        let n = counter.withLock { value -> Int in
            value = value % 999_999 + 1
            return value
        }
        return "\(getpid())-\(n)"
    }
}
