import Synchronization

/// Every segment of a download, in file order, tiling `[0, length)`. Workers claim unowned
/// segments; when none is left, an idle worker steals the second half of the segment with the
/// longest estimated time to finish. Structure changes and snapshots take a lock; the data
/// path only touches a segment's atomics.
final class SegmentTable: Sendable {
    private let structure: Locked<[Segment]>

    /// Bytes per second the whole download made lately, measured by the coordinator; 0 until known.
    let throughput = Atomic<Int64>(0)

    /// Segments created by steals so far.
    let steals = Atomic<Int>(0)
    /// Hedges that delivered first and took over a tail, and hedges the victim won.
    let hedgesWon = Atomic<Int>(0)
    let hedgesLost = Atomic<Int>(0)

    init(ranges: [ByteRange]) {
        structure = Locked(ranges.map { Segment(range: $0) })
    }

    /// Segments restored from a journal: each continues from its watermark.
    init(journal entries: [SegmentRecord]) {
        structure = Locked(entries.map { Segment(range: ByteRange(start: $0.start, end: $0.end), written: $0.written) })
    }

    /// The segments now, in file order.
    var segments: [Segment] { structure.withLock { $0 } }

    /// The first unowned, unfinished segment, now owned by the caller; nil when none is left.
    func claim() -> Segment? {
        structure.withLock { segments in
            for segment in segments where !segment.isComplete && !segment.owned.load(ordering: .relaxed) {
                segment.owned.store(true, ordering: .relaxed)
                segment.moved.store(0, ordering: .relaxed) // a released one's silence is not its new worker's
                return segment
            }
            return nil
        }
    }

    /// Hands `segment` back unowned (its worker retired): the next worker to claim continues
    /// it from its watermark.
    func release(_ segment: Segment) {
        structure.withLock { _ in segment.owned.store(false, ordering: .relaxed) }
    }

    /// Takes over the tail of the owned segment with the longest estimated time to finish
    /// (remaining bytes over its measured speed). The split is chosen so that victim and thief
    /// finish together at their speeds (an even split when either speed is unknown); what the
    /// victim may already have in flight stays with it (`reserve` bytes at most, less for a slow
    /// victim), the part taken must be at least `minimum` bytes, and the victim must still need
    /// `minimumETA` seconds. A victim that wrote nothing since `stalledBefore` (monotonic
    /// nanoseconds; 0 for never) is stalled: whatever speed it showed before, it finishes last
    /// and its tail is split evenly. Returns the new segment, owned by the caller, or nil when
    /// nothing is worth taking.
    func steal(minimum: Int64, reserve: Int64, thiefSpeed: Int64, minimumETA: Double, stalledBefore: UInt64 = 0) -> Segment? {
        func kept(_ segment: Segment) -> Int64 {
            let speed = segment.speed.load(ordering: .relaxed)
            return speed > 0 ? min(reserve, max(SegmentTable.minimumReserve, Int64(Double(speed) * SegmentTable.reserveSeconds))) : reserve
        }
        // Its speed is measured over the coordinator's ticks (half a second once the count is
        // settled): under a per-second allowance it still shows the last burst's rate while the
        // connection waits for the next release, so a tail left on it looked about to finish.
        func stalled(_ segment: Segment) -> Bool {
            let moved = segment.moved.load(ordering: .relaxed)
            return moved != 0 && moved < stalledBefore
        }
        return structure.withLock { segments in
            // The stalled first (the one with the most left), then the longest time to finish.
            var best: (index: Int, eta: Double, rank: (Int, Double))?
            for (index, segment) in segments.enumerated() where segment.owned.load(ordering: .relaxed) {
                let remaining = segment.remaining
                guard remaining - kept(segment) >= minimum else { continue }
                // Not measured yet: assume it runs about as fast as the thief did.
                let speed = segment.speed.load(ordering: .relaxed)
                let estimate = speed > 0 ? speed : thiefSpeed
                // Stalled only while an even split is still worth a steal: a small silent tail
                // must not hide the others from every thief.
                let isStalled = stalled(segment) && min(remaining - kept(segment), remaining / 2) >= minimum
                let eta = isStalled || estimate <= 0 ? .infinity : Double(remaining) / Double(estimate)
                let rank = (isStalled ? 1 : 0, isStalled ? Double(remaining) : eta)
                if best == nil || rank > best!.rank { best = (index, eta, rank) }
            }
            // A victim about to finish is not worth a new request.
            guard let best, best.eta >= minimumETA else { return nil }
            let victim = segments[best.index]
            let end = victim.end.load(ordering: .acquiring)
            let remaining = end - victim.written.load(ordering: .acquiring)
            let movable = remaining - kept(victim)
            let victimSpeed = best.rank.0 == 1 ? 0 : Double(victim.speed.load(ordering: .relaxed))
            let share = victimSpeed > 0 && thiefSpeed > 0 ? Double(thiefSpeed) / (Double(thiefSpeed) + victimSpeed) : 0.5
            var taken = min(movable, Int64(Double(remaining) * share))
            // Many workers fall idle at once when the fast ones finish. Halving halves would
            // leave them uneven pieces; instead each takes what it can fetch by the time the
            // whole download could end at its recent throughput, as long as enough stays for
            // the victim and at least half another thief's piece; the last one to come splits
            // what is left so that it and the victim finish together.
            let throughput = Double(self.throughput.load(ordering: .relaxed))
            if throughput > 0, thiefSpeed > 0, victimSpeed > 0 {
                let left = segments.reduce(Int64(0)) { $0 + max(0, $1.remaining) }
                let finish = Double(left) / throughput
                let piece = Double(thiefSpeed) * finish
                if Double(remaining) - piece >= victimSpeed * finish + piece / 2 {
                    taken = min(taken, max(minimum, Int64(piece)))
                }
            }
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

    /// What a victim keeps beyond its watermark: about what it receives in this long ...
    static let reserveSeconds = 0.02
    /// ... and at least this many bytes.
    static let minimumReserve: Int64 = 4096

    /// Picks the tail of a slow segment for an idle worker to fetch in parallel (a hedge), when
    /// stealing has nothing left worth a split: the segment that would finish last, if it would
    /// take more than twice as long as the idle worker needs for the tail (at its own speed,
    /// plus a request's latency). The tail starts past what the victim will deliver while the
    /// hedge's request is under way.
    ///
    /// Nothing changes hands yet: the hedge owns its range only if its first byte arrives
    /// before the victim reaches it (`commit`).
    func hedge(minimum: Int64, reserve: Int64, thiefSpeed: Int64, latency: Double) -> Hedge? {
        structure.withLock { segments in
            var victim: (segment: Segment, eta: Double, speed: Double)?
            var speeds: [Double] = []
            for segment in segments where segment.owned.load(ordering: .relaxed) && !segment.isComplete {
                let speed = Double(segment.speed.load(ordering: .relaxed))
                guard speed > 0 else { continue } // not measured yet
                speeds.append(speed)
                let eta = Double(segment.remaining) / speed
                if victim == nil || eta > victim!.eta { victim = (segment, eta, speed) }
            }
            guard let victim, !victim.segment.hedged.load(ordering: .relaxed) else { return nil }
            let start = victim.segment.written.load(ordering: .acquiring) + reserve + Int64(victim.speed * 2 * latency)
            let end = victim.segment.end.load(ordering: .acquiring)
            guard end - start >= minimum else { return nil }
            // A worker that has not measured its speed yet: assume the median of the running ones.
            let speed = thiefSpeed > 0 ? Double(thiefSpeed) : speeds.sorted()[speeds.count / 2]
            let hedgeTime = Double(end - start) / speed + latency
            guard victim.eta > 2 * hedgeTime else { return nil }
            victim.segment.hedged.store(true, ordering: .relaxed)
            return Hedge(
                victim: victim.segment, tail: Segment(range: ByteRange(start: start, end: end), fromHedge: true),
                thiefSpeed: thiefSpeed)
        }
    }

    /// The hedge's first byte has arrived: if the victim has not reached the tail (and nobody
    /// moved its end meanwhile), the tail becomes the hedge's segment and the victim stops
    /// where it starts. Returns false when the victim won; the hedge must then stop.
    func commit(_ hedge: Hedge) -> Bool {
        structure.withLock { segments in
            defer { hedge.victim.hedged.store(false, ordering: .relaxed) }
            let tail = hedge.tail
            guard hedge.victim.end.load(ordering: .acquiring) == tail.end.load(ordering: .relaxed),
                hedge.victim.written.load(ordering: .acquiring) < tail.start,
                let index = segments.firstIndex(where: { $0 === hedge.victim })
            else {
                hedgesLost.add(1, ordering: .relaxed)
                return false
            }
            hedge.victim.end.store(tail.start, ordering: .releasing)
            tail.owned.store(true, ordering: .relaxed)
            tail.speed.store(hedge.thiefSpeed, ordering: .relaxed)
            segments.insert(tail, at: index + 1)
            hedgesWon.add(1, ordering: .relaxed)
            return true
        }
    }

    /// The hedge failed before its first byte (an error or a stop): the victim may be hedged again.
    func abandon(_ hedge: Hedge) {
        hedge.victim.hedged.store(false, ordering: .relaxed)
    }

    /// Every segment's range and watermark, for the journal; consistent with steals (it takes
    /// the same lock), so the entries always tile the file.
    func snapshot() -> [SegmentRecord] {
        structure.withLock { segments in
            segments.map { segment in
                SegmentRecord(
                    start: segment.start, end: segment.end.load(ordering: .acquiring),
                    written: segment.writtenWithinEnd)
            }
        }
    }

    var bytesWritten: Int64 {
        segments.reduce(0) { $0 + ($1.writtenWithinEnd - $1.start) }
    }

    var isComplete: Bool { segments.allSatisfy(\.isComplete) }

    /// Segments not yet finished.
    var unfinishedCount: Int { segments.filter { !$0.isComplete }.count }
}
