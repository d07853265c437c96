/// How an idle worker picks what to steal.
extension SegmentWorker {
    /// Bytes after a victim's watermark that a steal leaves with it, for what may already be on
    /// its way to the victim. (Correctness does not depend on it: a victim keeps only bytes
    /// below its end as it reads it, and what it writes past a later end is the same bytes.)
    static let stealReserve: Int64 = 32 * 1024

    /// A steal pays off when the victim still needs several times what a request takes to be
    /// answered (measured on this download: a round trip on a kept connection, a handshake on
    /// a new one). A victim silent for two of those is stalled, whatever its speed was; not
    /// under `--limit-rate`, whose waits for an allowance are silences too.
    func steal(from table: SegmentTable, minimum: Int64, speed: Int64) -> Segment? {
        let latency = transfer.latency.seconds
        let minimumETA = max(SegmentWorker.minimumStealETA, 4 * latency)
        let silence = UInt64(max(SegmentWorker.minimumStall, 2 * latency) * 1e9)
        let now = MonotonicClock.nanoseconds()
        return table.steal(
            minimum: minimum, reserve: SegmentWorker.stealReserve, thiefSpeed: speed, minimumETA: minimumETA,
            stalledBefore: transfer.limiter == nil && now > silence ? now - silence : 0)
    }

    /// The shortest silence that makes a victim stalled: longer than the gaps between a
    /// connection's reads on a busy path (a loopback socket paced by the kernel delivers every
    /// few milliseconds), far shorter than a per-second allowance's wait for its release.
    static let minimumStall = 0.05

    /// The fewest bytes a steal takes (with the default segment size, 32 KiB).
    static let minimumSteal: Int64 = 16 * 1024

    /// The least time a victim must still need for a steal, however fast requests are answered.
    static let minimumStealETA = 0.02
}
