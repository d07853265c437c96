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
    /// Whether a worker has taken it.
    let owned = Atomic<Bool>(false)

    init(range: ByteRange, written: Int64? = nil) {
        start = range.start
        end = Atomic(range.end)
        self.written = Atomic(written ?? range.start)
    }

    var remaining: Int64 { end.load(ordering: .acquiring) - written.load(ordering: .acquiring) }
    var isComplete: Bool { remaining <= 0 }
}

/// Every segment of a download, in file order, tiling `[0, length)`. Workers claim unowned
/// segments; when none is left, an idle worker steals the second half of the segment with the
/// longest estimated time to finish. Structure changes and snapshots take a lock; the data
/// path only touches a segment's atomics.
final class SegmentTable: Sendable {
    private let structure: Locked<[Segment]>
    /// Seconds a victim must still need for a steal to pay off.
    static let minimumStealETA = 0.25

    /// Segments created by steals so far.
    let steals = Atomic<Int>(0)

    init(ranges: [ByteRange]) {
        structure = Locked(ranges.map { Segment(range: $0) })
    }

    /// Segments restored from a journal: each continues from its watermark.
    init(journal entries: [Journal.Entry]) {
        structure = Locked(entries.map { Segment(range: ByteRange(start: $0.start, end: $0.end), written: $0.written) })
    }

    /// The segments now, in file order.
    var segments: [Segment] { structure.withLock { $0 } }

    /// The first unowned, unfinished segment, now owned by the caller; nil when none is left.
    func claim() -> Segment? {
        structure.withLock { segments in
            for segment in segments where !segment.isComplete && !segment.owned.load(ordering: .relaxed) {
                segment.owned.store(true, ordering: .relaxed)
                return segment
            }
            return nil
        }
    }

    /// Takes over the tail of the owned segment with the longest estimated time to finish
    /// (remaining bytes over its measured speed). The split is chosen so that victim and thief
    /// finish together at their speeds (an even split when either speed is unknown); the
    /// first `reserve` bytes after the victim's watermark stay with it, and the part taken must
    /// be at least `minimum` bytes. Returns the new segment, owned by the caller, or nil when
    /// nothing is worth taking.
    func steal(minimum: Int64, reserve: Int64, thiefSpeed: Int64) -> Segment? {
        structure.withLock { segments in
            var best: (index: Int, eta: Double)?
            for (index, segment) in segments.enumerated() where segment.owned.load(ordering: .relaxed) {
                let remaining = segment.remaining
                guard remaining - reserve >= minimum else { continue }
                let speed = segment.speed.load(ordering: .relaxed)
                let eta = speed > 0 ? Double(remaining) / Double(speed) : .infinity
                if best == nil || eta > best!.eta { best = (index, eta) }
            }
            // A victim about to finish is not worth a new request (and, over TLS, a handshake).
            guard let best, best.eta >= SegmentTable.minimumStealETA else { return nil }
            let victim = segments[best.index]
            let end = victim.end.load(ordering: .acquiring)
            let movable = end - victim.written.load(ordering: .acquiring) - reserve
            let victimSpeed = Double(victim.speed.load(ordering: .relaxed))
            let share = victimSpeed > 0 && thiefSpeed > 0 ? Double(thiefSpeed) / (Double(thiefSpeed) + victimSpeed) : 0.5
            let taken = Int64(Double(movable) * share)
            guard taken >= minimum else { return nil }
            let split = end - taken
            victim.end.store(split, ordering: .releasing)
            let segment = Segment(range: ByteRange(start: split, end: end))
            segment.owned.store(true, ordering: .relaxed)
            // Until the coordinator measures it, it runs at about the thief's speed.
            segment.speed.store(thiefSpeed, ordering: .relaxed)
            segments.insert(segment, at: best.index + 1)
            steals.add(1, ordering: .relaxed)
            return segment
        }
    }

    /// Every segment's range and watermark, for the journal; consistent with steals (it takes
    /// the same lock), so the entries always tile the file.
    func snapshot() -> [Journal.Entry] {
        structure.withLock { segments in
            segments.map { segment in
                Journal.Entry(start: segment.start, end: segment.end.load(ordering: .acquiring),
                              written: segment.written.load(ordering: .acquiring))
            }
        }
    }

    var bytesWritten: Int64 {
        segments.reduce(0) { $0 + ($1.written.load(ordering: .relaxed) - $1.start) }
    }

    var isComplete: Bool { segments.allSatisfy(\.isComplete) }

    /// Segments not yet finished.
    var unfinishedCount: Int { segments.filter { !$0.isComplete }.count }
}
