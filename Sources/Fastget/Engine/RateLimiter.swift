/// A token bucket shared by a download's workers: at most `rate` bytes per second in total,
/// with bursts of at most a tenth of a second's worth. A worker takes an allowance before each
/// read and gives back what the read did not use.
final class RateLimiter: Sendable {
    let rate: Double
    private let burst: Double
    private let bucket: Locked<(tokens: Double, refilled: Double)>

    /// The smallest burst, whatever the rate.
    static let minimumBurst = 16.0 * 1024
    /// A burst is this many seconds' worth of the rate…
    static let burstSeconds = 0.1
    /// …and a worker waits for a piece of at least this share of a burst, not for every byte.
    static let pieceOfBurst = 1.0 / 16

    init(bytesPerSecond: Int64) {
        rate = Double(bytesPerSecond)
        burst = max(RateLimiter.minimumBurst, rate * RateLimiter.burstSeconds)
        bucket = Locked((0, MonotonicClock.seconds()))
    }

    /// Waits until some bytes may be read and returns how many (1…`limit`); returns 0 at once
    /// when `stopped` says so.
    func take(upTo limit: Int, stopped: () -> Bool) -> Int {
        while !stopped() {
            let (granted, wait) = bucket.withLock { bucket -> (Int, Double) in
                let now = MonotonicClock.seconds()
                bucket.tokens = min(burst, bucket.tokens + (now - bucket.refilled) * rate)
                bucket.refilled = now
                let want = min(Double(limit), burst * RateLimiter.pieceOfBurst)
                guard bucket.tokens >= want else { return (0, (want - bucket.tokens) / rate) }
                let granted = Int(min(Double(limit), bucket.tokens))
                bucket.tokens -= Double(granted)
                return (granted, 0)
            }
            if granted > 0 { return granted }
            MonotonicClock.sleep(seconds: min(wait, RateLimiter.longestSleep))
        }
        return 0
    }

    /// The longest `take` sleeps before it looks again whether it was stopped.
    static let longestSleep = 0.05

    /// Returns bytes an allowance did not use.
    func giveBack(_ count: Int) {
        guard count > 0 else { return }
        bucket.withLock { $0.tokens = min(burst, $0.tokens + Double(count)) }
    }
}
