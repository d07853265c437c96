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
}
