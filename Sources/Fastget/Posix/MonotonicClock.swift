internal import Glibc

/// Monotonic time in nanoseconds (`clock_gettime(CLOCK_MONOTONIC)`).
package enum MonotonicClock {
    package static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    package static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }

    /// Seconds that stand for "no limit" (about 31 years) where a timeout or deadline becomes a
    /// `timeval`, `timespec` or poll interval. Timeouts are Doubles a user may set to 1e300 or
    /// infinity, and converting a Double beyond `Int.max` to an integer traps.
    package static let forever: Double = 1e9

    /// Blocks the calling thread for about `seconds` (at most `forever`); returns at once for
    /// zero or less, and may return early when a signal arrives. Callers that wait for a
    /// condition sleep in short steps and look again. The corresponding C function is `nanosleep`.
    package static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let bounded = min(seconds, forever)
        let whole = bounded.rounded(.down)
        var request = timespec(tv_sec: Int(whole), tv_nsec: Int((bounded - whole) * 1e9))
        nanosleep(&request, nil)
    }
}
