import Synchronization

/// One segment's live state, shared by its worker (the only writer) and the coordinator.
final class Segment: Sendable {
    let index: Int
    let start: Int64
    /// Exclusive end. Atomic because a later scheduler may move it down while the worker runs.
    let end: Atomic<Int64>
    /// The first byte not yet written: `[start, written)` is on disk (not yet necessarily durable).
    /// Published after `pwrite` returns.
    let written: Atomic<Int64>

    init(index: Int, range: ByteRange) {
        self.index = index
        start = range.start
        end = Atomic(range.end)
        written = Atomic(range.start)
    }

    var remaining: Int64 { end.load(ordering: .acquiring) - written.load(ordering: .acquiring) }
    var isComplete: Bool { remaining <= 0 }
}

/// Every segment of a download, and which of them a worker has claimed.
final class SegmentTable: Sendable {
    let segments: [Segment]
    private let nextClaim = Atomic<Int>(0)

    init(ranges: [ByteRange]) {
        segments = ranges.enumerated().map { Segment(index: $0.offset, range: $0.element) }
    }

    /// Segments restored from a journal: each continues from its watermark.
    init(journal entries: [Journal.Entry]) {
        segments = entries.enumerated().map { index, entry in
            let segment = Segment(index: index, range: ByteRange(start: entry.start, end: entry.end))
            segment.written.store(entry.written, ordering: .relaxed)
            return segment
        }
    }

    /// Every segment's range and watermark, for the journal. Each watermark is read once, after
    /// the `pwrite`s it covers returned (release/acquire on `written`).
    func snapshot() -> [Journal.Entry] {
        segments.map { segment in
            let written = segment.written.load(ordering: .acquiring)
            return Journal.Entry(start: segment.start, end: segment.end.load(ordering: .acquiring), written: written)
        }
    }

    /// The next unclaimed, unfinished segment, or nil when none is left.
    func claim() -> Segment? {
        while true {
            let index = nextClaim.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < segments.count else { return nil }
            if !segments[index].isComplete { return segments[index] }
        }
    }

    var bytesWritten: Int64 {
        segments.reduce(0) { $0 + ($1.written.load(ordering: .relaxed) - $1.start) }
    }

    var isComplete: Bool { segments.allSatisfy(\.isComplete) }
}
