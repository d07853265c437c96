import Synchronization

/// One segment's live state. Its worker is the only writer of `written`; `end` moves down only
/// when another worker steals the segment's tail (under the table's lock).
final class Segment: Sendable {
    let start: Int64
    /// Exclusive end. A steal lowers it; the worker re-reads it before every read and stops there.
    let end: Atomic<Int64>
    /// The first byte not yet written: `[start, written)` is on disk (not yet necessarily durable).
    /// Published after `pwrite`/`splice` returns.
    let written: Atomic<Int64>
    /// Bytes per second lately, measured by the coordinator; 0 until known.
    let speed = Atomic<Int64>(0)
    /// When its worker last wrote body bytes (monotonic nanoseconds); 0 until its first bytes.
    /// A victim silent for a while is stalled (a per-connection allowance spent until the next
    /// release, a lost packet waiting for its retransmission), however fast `speed` says it was.
    let moved = Atomic<UInt64>(0)
    /// Whether a worker has taken it.
    let owned = Atomic<Bool>(false)
    /// Whether an idle worker has a hedge request out for this segment's tail.
    let hedged = Atomic<Bool>(false)
    /// Where the segment ended when it was made: a lower `end` means it was stolen from.
    let plannedEnd: Int64
    /// Whether it is a tail that a hedge won.
    let fromHedge: Bool

    init(range: ByteRange, written: Int64? = nil, fromHedge: Bool = false) {
        start = range.start
        end = Atomic(range.end)
        plannedEnd = range.end
        self.fromHedge = fromHedge
        self.written = Atomic(written ?? range.start)
    }

    var remaining: Int64 { end.load(ordering: .acquiring) - written.load(ordering: .acquiring) }

    /// The watermark as the journal may record it. A steal that lands between the worker's check
    /// of `end` and its write lets it write (identical) bytes past its new end, up to one read
    /// (a buffer, or a splice pipe of 1 MiB); those bytes are the thief's to account for.
    var writtenWithinEnd: Int64 { min(written.load(ordering: .acquiring), end.load(ordering: .acquiring)) }
    var isComplete: Bool { remaining <= 0 }
}
