/// One worker thread's loop: claim a segment, request its remaining range, validate the
/// response, move the body to the segment's offset in the file, publish the watermark; retry
/// temporary failures from the watermark.
///
/// Plain HTTP bodies go socket → pipe → file with `splice(2)` and never enter user space; TLS
/// (and anything `splice` refuses) is read into this worker's pool buffer and `pwrite`n.
final class SegmentWorker {
    let id: Int
    /// The coordinator's handle on this worker: a retirement asked for, first bytes delivered.
    let slot: WorkerSlot
    let transfer: Transfer
    let buffer: UnsafeMutableRawBufferPointer
    /// This worker's pipe for `splice`; nil when splicing is off or failed once.
    var pipe: SplicePipe?
    /// The connection this worker's last range ended cleanly on: its next range goes there.
    /// Kept per worker, not pooled, because a connection's speed belongs to it (a slow path or
    /// a per-connection cap); a pooled one could hand a fast worker the slow connection.
    private var kept: HTTPConnection?

    /// - Parameter initialSpeed: what this worker offers as a thief until it measured its own
    ///   speed (a worker added to running ones: about what each of them carries).
    init(slot: WorkerSlot, transfer: Transfer, buffer: UnsafeMutableRawBufferPointer, splice: Bool, initialSpeed: Int64 = 0) {
        id = slot.id
        self.slot = slot
        self.initialSpeed = initialSpeed
        self.transfer = transfer
        self.buffer = buffer
        url = transfer.url
        source = transfer.sources[0]
        pipe = splice ? try? SplicePipe(capacity: SegmentWorker.pipeCapacity) : nil
    }

    /// Where this worker's current request goes (its source's URL when it was sent).
    var url: HTTPURL
    /// How many servers on this worker moved past its own after low-speed drops.
    private var rotation = 0
    /// The server this worker's current range comes from.
    private var source: Source
    private let initialSpeed: Int64

    /// The coordinator asked this worker to end (an automatic count went down).
    private var retiring: Bool { slot.retire.load(ordering: .acquiring) }

    /// Ranged mode: unclaimed segments first, then halves stolen from the slowest; when
    /// nothing is worth a split, hedges on the tail of a segment far slower than the rest, until
    /// every segment is complete.
    func run(table: SegmentTable) {
        let minimum = max(SegmentWorker.minimumSteal, transfer.options.minimumSegmentSize / 32)
        let stealing = transfer.options.stealsWork
        var hedgesLeft = transfer.options.hedgesTails ? SegmentWorker.maximumFailedHedges : 0
        var speed = initialSpeed
        while !transfer.control.isStopped && !retiring {
            let claimed = table.claim()
            if let segment = claimed ?? (stealing ? steal(from: table, minimum: minimum, speed: speed) : nil) {
                if claimed == nil { transfer.post(.steal(ByteRange(start: segment.start, end: segment.end.load(ordering: .relaxed)))) }
                measuredSpeed = 0
                defer { speed = measuredSpeed > 0 ? measuredSpeed : segment.speed.load(ordering: .relaxed) }
                do {
                    try withRetries { try fetch(segment) }
                } catch {
                    fail(error, holding: segment, table: table)
                    return
                }
                if retiring {
                    table.release(segment) // what is left of it goes to the next worker to claim
                    return
                }
                if table.isComplete { transfer.control.nudge() } // the idle ones may end now
                continue
            }
            if table.isComplete { return }
            guard hedgesLeft > 0 else {
                // Nothing to take now, but a worker that retires hands its range back: stay
                // until every byte is in.
                transfer.control.sleep(seconds: SegmentWorker.idlePoll)
                continue
            }
            guard
                let hedge = table.hedge(
                    minimum: SegmentWorker.minimumHedge, reserve: SegmentWorker.hedgeReserve,
                    thiefSpeed: speed, latency: transfer.latency.seconds)
            else {
                // Idle: look again shortly; a segment may yet fall behind the others.
                transfer.control.sleep(seconds: SegmentWorker.idlePoll)
                continue
            }
            measuredSpeed = 0
            do {
                let won = try run(hedge, table: table)
                if retiring {
                    if won { table.release(hedge.tail) }
                    return
                }
                if !won {
                    hedgesLeft -= 1
                    transfer.control.sleep(seconds: SegmentWorker.idlePoll)
                }
            } catch {
                fail(error, holding: hedge.tail, table: table) // thrown only once the hedge won its tail
                return
            }
            if measuredSpeed > 0 { speed = measuredSpeed }
            if table.isComplete { transfer.control.nudge() }
        }
    }

    /// Ends this worker after `error`. A connection an automatic count added hands `segment`
    /// back to the others, which carry on (a server may allow fewer connections per client);
    /// any other worker fails the transfer.
    private func fail(_ error: FastgetError, holding segment: Segment, table: SegmentTable) {
        guard !transfer.control.isStopped, slot.failedOut || slot.failOut() else {
            transfer.control.fail(error)
            return
        }
        table.release(segment)
        transfer.post(.notice("an added connection failed (\(error.message)); carrying on with the others"))
    }

    /// The smallest tail worth a hedge request.
    static let minimumHedge: Int64 = 16 * 1024
    /// Bytes after a victim's watermark a hedge leaves it, besides what it delivers while the
    /// hedge's request is under way: a hedge that loses costs only a request, so this is small.
    static let hedgeReserve: Int64 = 8 * 1024
    /// Hedges a worker may lose or see fail before it stops hedging.
    static let maximumFailedHedges = 3
    /// Seconds between an idle worker's looks for a tail to hedge.
    static let idlePoll = 0.01

    /// Fetches a hedge's tail. Before its first byte, a failure costs nothing (the victim carries
    /// on); once its first byte is in first, the tail is this worker's segment like any other.
    /// - Returns: whether the hedge won its tail.
    private func run(_ hedge: Hedge, table: SegmentTable) throws(FastgetError) -> Bool {
        var won: Bool?
        let range = ByteRange(start: hedge.tail.start, end: hedge.tail.end.load(ordering: .relaxed))
        pendingCommit = { [transfer] in
            won = table.commit(hedge)
            transfer.post(.hedge(range, won: won!))
            return won!
        }
        defer { pendingCommit = nil }
        var failed = false
        do {
            try fetch(hedge.tail)
        } catch {
            failed = true
        }
        guard let won else {
            table.abandon(hedge)
            return false
        }
        if won && failed { try withRetries { try fetch(hedge.tail) } }
        return won
    }

    /// Whether this worker has written body bytes (told to the coordinator once).
    private var streamed = false

    /// Called after every write when the worker runs on the coordinator's thread (a small file).
    var tick: (() -> Void)?

    /// The body bytes per second of this worker's last completed range (0 when too short to
    /// tell): what it offers as a thief, since a connection's speed belongs to it.
    private var measuredSpeed: Int64 = 0

    /// Set while a hedge waits for its first byte: commits the hedge; false when the victim
    /// got there first.
    var pendingCommit: (() -> Bool)?

    /// Called with the first body bytes of a response in hand, before any is written.
    func confirmOwnership(_ connection: HTTPConnection) throws {
        guard let commit = pendingCommit else { return }
        pendingCommit = nil
        if !commit() {
            connection.invalidate()
            connection.shutdown()
            throw HedgeLost()
        }
    }

    /// Hands the connection this worker's last range ended cleanly on to the pool, for the next
    /// request of any worker or, in a shared session, of the next download to the origin.
    func parkKept() {
        if let kept { transfer.requester.pool.park(kept) }
        kept = nil
    }

    /// Single-stream mode (no range support or unknown length): one GET of the whole body.
    /// A failed attempt cannot resume without ranges, so a retry starts over at byte 0.
    func runSingleStream(progress: Segment) {
        do {
            try withRetries {
                progress.written.store(0, ordering: .releasing)
                let length = try fetchWhole(progress)
                transfer.streamedLength.store(length, ordering: .releasing)
            }
        } catch {
            transfer.control.fail(error)
        }
    }

    private func withRetries(_ attempt: () throws -> Void) throws(FastgetError) {
        var failures = 0
        // Retries count per server: moving to another server starts the count afresh.
        var failing: Source?
        while !transfer.control.isStopped {
            do {
                try attempt()
                return
            } catch {
                if transfer.control.isStopped { return } // our own shutdown, not the server's fault
                transfer.control.connections.track(id, nil) // a connection that failed before its answer: let it go now
                // Asked to end (the count went down): the range goes back to the table, as it
                // would have at the next read; no retry, and no failure of a primary that has
                // passed its role on.
                if retiring { return }
                if slot.slowDrop.exchange(false, ordering: .acquiring) {
                    // Dropped below the low-speed limit: the server answered and sends, only
                    // slowly, so this is no failure of it and no retry is used up. The range goes
                    // on a new connection, to the next server when there are several. It cannot
                    // loop: drops happen only while the whole download keeps above the limit,
                    // and below it the download fails (`LowSpeedWatch`).
                    rotation += 1
                    continue
                }
                if let rejected = error as? SourceRejected {
                    // A mirror's answer disqualified it; nothing of it was written.
                    guard transfer.drop(source, because: rejected.reason) else { throw FastgetError(.protocolViolation, rejected.reason) }
                    failures = 0
                    continue
                }
                if failing !== source {
                    failing = source
                    failures = 0
                }
                let failure = FastgetError.from(error, url: url)
                if source.index == 0, failure.httpStatus == 403 || failure.httpStatus == 410, transfer.refreshExpired(url, worker: id) {
                    continue // the redirect target expired; the original URL gave a new one
                }
                if transfer.control.isStopped { return } // stopped while re-resolving it
                // An added connection of an automatic count gives its range back at once instead,
                // decided here once: a promotion to primary cannot come between this and `fail`.
                let handsBack = slot.failOut()
                guard !handsBack, failure.isRetryable, failures < transfer.options.retries else {
                    // A server that keeps failing is dropped while another can take its ranges
                    // (not by a connection an automatic count added: that one hands its range
                    // back, and the count goes down instead).
                    if failure.isServerSide, !handsBack, transfer.drop(source, because: failure.message) {
                        failures = 0
                        continue
                    }
                    throw failure
                }
                failures += 1
                transfer.retries.add(1, ordering: .relaxed)
                transfer.post(.retry(attempt: failures, error: failure))
                transfer.control.sleep(seconds: failure.retryDelay(attempt: failures))
            }
        }
    }

    /// Counts `count` body bytes written for the source and for this worker's slot.
    private func credit(_ count: Int) {
        source.bytes.add(Int64(count), ordering: .relaxed)
        slot.bytes.add(Int64(count), ordering: .relaxed)
    }

    private func fetch(_ segment: Segment) throws {
        let start = segment.written.load(ordering: .acquiring)
        let end = segment.end.load(ordering: .acquiring)
        guard start < end, !retiring else { return }
        source = transfer.source(for: id + rotation) ?? transfer.sources[0]
        url = transfer.url(of: source)
        let connection = try answer(ByteRange(start: start, end: end))
        defer { transfer.control.connections.track(id, nil) }
        let bodyStarted = slot.enterBody()
        defer { slot.leaveBody() }
        transfer.location.served(url)

        // Re-read the end before every read: a steal may have moved it down, and the worker
        // stops exactly there (the rest of this response then goes unused).
        var offset = start
        defer {
            source.served(ByteRange(start: start, end: offset))
            slot.cut.store(false, ordering: .relaxed)
        }
        while offset < segment.end.load(ordering: .acquiring) {
            if retiring && pendingCommit == nil { break } // the rest goes back to the table
            if segment.end.load(ordering: .relaxed) < end { slot.cut.store(true, ordering: .relaxed) }
            var limit = segment.end.load(ordering: .acquiring) - offset
            var allowance = 0
            if let limiter = transfer.limiter {
                allowance = limiter.take(upTo: Int(min(Int64(buffer.count), limit))) { transfer.control.isStopped }
                if allowance == 0 { return } // stopped while waiting
                limit = Int64(allowance)
            }
            var count = 0
            defer { if allowance > 0 { transfer.limiter?.giveBack(allowance - count) } }
            if let pipe, let socket = connection.spliceableSocket {
                count = try splice(from: socket, through: pipe, connection, segment: segment, at: offset, limit: limit)
            } else {
                let want = Int(min(Int64(buffer.count), limit))
                let read = try connection.readBody(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]),
                    deadline: transfer.requester.ioDeadline)
                if read > 0 { try confirmOwnership(connection) }
                // A steal that landed during the read: keep only the bytes still ours.
                count = Int(min(Int64(read), max(0, segment.end.load(ordering: .acquiring) - offset)))
                if count > 0 {
                    try transfer.output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
                }
                if read == 0 {
                    throw TransferError.truncatedBody(received: offset - start, expected: end - start)
                }
                if count < read {
                    connection.shutdown()
                    offset += Int64(count)
                    segment.written.store(offset, ordering: .releasing)
                    credit(count)
                    return
                }
            }
            if count == 0 {
                if offset >= segment.end.load(ordering: .acquiring) { break } // stolen mid-fill
                throw TransferError.truncatedBody(received: offset - start, expected: end - start)
            }
            offset += Int64(count)
            segment.written.store(offset, ordering: .releasing)
            segment.moved.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
            credit(count)
            if !streamed {
                streamed = true
                slot.streamed.store(true, ordering: .relaxed)
            }
            tick?()
        }
        try finish(connection, asked: ByteRange(start: start, end: end), got: offset, since: bodyStarted)
    }

    /// After a response's last read: a body cut short (stolen from, or retiring) ends its
    /// connection; a whole one gives this worker's speed, and its connection is kept if the
    /// body ended exactly there.
    private func finish(_ connection: HTTPConnection, asked: ByteRange, got offset: Int64, since bodyStarted: Double) throws {
        guard offset >= asked.end else {
            connection.shutdown() // the body continues past where this worker stops
            return
        }
        let seconds = MonotonicClock.seconds() - bodyStarted
        if seconds > 0, offset - asked.start >= SegmentWorker.minimumSteal {
            measuredSpeed = Int64(Double(offset - asked.start) / seconds)
        }
        if try connection.finishBody(scratch: buffer, deadline: transfer.requester.ioDeadline) {
            kept = connection
        } else {
            connection.shutdown()
        }
    }

    /// The checked answer to a request for `range`: the probe's own GET when the range starts at
    /// byte 0 and nobody took it yet, else a range request on this worker's kept connection, a
    /// pooled one or a new one.
    private func answer(_ range: ByteRange) throws -> HTTPConnection {
        if range.start == 0, source.index == 0, let opened = transfer.takeOpened(ranged: true) {
            // Its answer was checked to be this file from byte 0 to its end; this worker reads
            // it up to the segment's end.
            transfer.control.connections.track(id, opened.connection)
            transfer.noticeEncoding(opened.head)
            return opened.connection
        }
        var fields = [(name: "Range", value: range.headerValue)]
        if let value = source.validator?.headerValue { fields.append(("If-Range", value)) }
        var request = transfer.requester.request("GET", url, extra: fields)
        request.publicOnly = source.publicOnly
        let sent = MonotonicClock.seconds()
        let (connection, head) = try transfer.requester.send(request, reusing: kept) { transfer.control.connections.track(id, $0) }
        transfer.latency.record(MonotonicClock.seconds() - sent)
        kept = nil
        try transfer.checkRange(head, for: range, url: url, connection: connection, source: source)
        return connection
    }
}
