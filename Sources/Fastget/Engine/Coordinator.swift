/// One pass of a transfer, run on the calling thread: starts a worker thread per segment, then
/// until they end, starts writeback of what they wrote, takes a checkpoint about once a second,
/// and reports progress. Takes a last checkpoint when the pass stops short.
struct Coordinator {
    let transfer: Transfer
    let table: SegmentTable
    /// How many workers: `plan.first` to start with, up to `plan.most`.
    let plan: ConnectionPlan
    /// Worker threads to start, each with one buffer of `buffers` and one connection at a time.
    var workers: Int { plan.first }
    let buffers: BufferPool
    let checkpointer: (any Checkpointing)?
    let segmented: Bool
    let started: Double
    /// The time the download ran in earlier runs (a resumed journal's).
    let earlier: Double
    /// The session's worker threads, shared with its other downloads.
    let threads: ThreadAllowance
    /// When the file streams to a descriptor: this thread writes it out, in order.
    let window: ReorderWindow?

    /// `allowance`: the per-host cap shared with other downloads, for an automatic `plan`.
    init(
        transfer: Transfer, table: SegmentTable, plan: ConnectionPlan, checkpointer: (any Checkpointing)?, segmented: Bool,
        started: Double, earlier: Double = 0, window: ReorderWindow? = nil, allowance: (any ConnectionAllowance)? = nil,
        threads: ThreadAllowance
    ) {
        precondition(plan.first >= 1)
        self.transfer = transfer
        self.table = table
        self.plan = plan
        if case .automatic(_, let maximum) = plan.count, let allowance {
            automatic = AutomaticCount(maximum: maximum, allowance: allowance)
        } else {
            automatic = nil
        }
        buffers = BufferPool(count: plan.most, size: transfer.options.bufferSize)
        self.checkpointer = checkpointer
        self.segmented = segmented
        self.started = started
        self.earlier = earlier
        self.threads = threads
        self.window = window
    }

    /// An automatic connection count: up to `maximum`, each connection past the first few
    /// reserved from `allowance` (the per-host cap shared with other downloads).
    struct AutomaticCount {
        let maximum: Int
        let allowance: any ConnectionAllowance
    }
    let automatic: AutomaticCount?

    /// Returns when every worker has ended; throws the first failure, or `.cancelled`.
    func run(progress: (DownloadProgress) -> Void, events: ([DownloadEvent]) -> Void) throws(FastgetError) {
        if runsInline { return try runInline(progress: progress, events: events) }
        let options = transfer.options
        let crew = WorkerCrew(
            transfer: transfer, table: table, buffers: buffers, segmented: segmented,
            splice: segmented && transfer.resource.url.scheme == .http && window == nil, automatic: automatic != nil,
            threads: threads)
        var governor = automatic.map { _ in ConnectionGovernor(maximum: buffers.count, initial: workers, now: MonotonicClock.seconds()) }
        let trace = governor == nil ? nil : GovernorTrace.fromEnvironment(now: MonotonicClock.seconds())
        var reserved = automatic?.allowance.reserve(workers) ?? 0
        defer { automatic?.allowance.release(reserved) }
        crew.grow(to: workers)
        var lastReport = 0.0
        var lastTick = MonotonicClock.seconds()
        // The first checkpoint comes early — after a fraction of a second or the first MiB —
        // so that a kill soon after the start loses little; then one per interval.
        var nextCheckpoint = lastTick + min(options.checkpointSeconds, Coordinator.firstCheckpointDelay)
        var firstCheckpointBytes: Int64? = table.bytesWritten + Coordinator.firstCheckpointBytes
        var flushed: [ObjectIdentifier: Int64] = [:]
        var sampled: [ObjectIdentifier: Int64] = [:]
        var total = table.bytesWritten
        var watch = options.speedLimit.map { LowSpeedWatch(limit: $0, seconds: options.speedSeconds, drops: options.rateLimit == nil) }
        while transfer.runningWorkers.load(ordering: .acquiring) > 0 {
            if let window {
                do throws(FastgetError) {
                    try window.drain(waiting: options.progressSeconds, unless: { transfer.control.isInterrupted })
                } catch {
                    transfer.control.fail(error) // the reader went away (EPIPE) or the disk is full
                }
                if transfer.control.isStopped { window.stop() }
            } else {
                // While the count is being measured, look more often: each step waits for the
                // next look, and 16 connections lose more every tick they are not open.
                transfer.control.wake.wait(
                    seconds: governor?.isMeasuring == true ? min(options.progressSeconds, Coordinator.measuringTick) : options.progressSeconds)
            }
            let now = MonotonicClock.seconds()
            measureSpeeds(&sampled, seconds: now - lastTick)
            measureThroughput(&total, seconds: now - lastTick)
            lastTick = now
            if watch != nil { judgeSpeeds(&watch!, slots: crew.slots, now: now) }
            if let checkpointer, now >= nextCheckpoint || firstCheckpointBytes.map({ table.bytesWritten >= $0 }) == true {
                nextCheckpoint = now + options.checkpointSeconds
                firstCheckpointBytes = nil
                do throws(FastgetError) {
                    transfer.post(.checkpoint(bytesOnDisk: try checkpointer.checkpoint(table)))
                } catch {
                    transfer.control.fail(error)
                }
            } else {
                startWriteback(&flushed)
            }
            publishEvents(events)
            if now - lastReport >= options.progressSeconds {
                lastReport = now
                progress(snapshot())
            }
            if governor != nil { adjust(&governor!, crew: crew, reserved: &reserved, now: now, trace: trace) } else { regrow(crew) }
            let failed = crew.reap()
            if failed > 0, governor != nil {
                governor!.lowerMaximum(to: crew.active, now: now)
                transfer.post(
                    .connectionsChanged(count: crew.active, reason: "\(failed) added connection(s) failed; at most \(crew.active) from now on"))
            }
            if let automatic, reserved > crew.alive {
                // Connections that ended (retired or failed) go back to the host's cap.
                automatic.allowance.release(reserved - crew.alive)
                reserved = crew.alive
            }
        }
        crew.joinAll()
        if let window {
            drainTail(window, progress: progress)
            // A stopped stream's closing line counts what went out, to the byte.
            if transfer.control.isStopped || transfer.control.failure != nil { progress(snapshot()) }
        }
        try throwIfStoppedShort(events)
        publishEvents(events)
        progress(snapshot())
    }

    /// Writes out what the workers left in the window, reporting progress, until it is out, the
    /// transfer is interrupted (a reader that takes nothing must not hold a stop), or, after a
    /// failure, the reader took nothing for `timeout` (the bytes before the failure are the
    /// file's true prefix, worth handing over, but not worth waiting for without end).
    private func drainTail(_ window: ReorderWindow, progress: (DownloadProgress) -> Void) {
        var lastMove = MonotonicClock.seconds()
        do throws(FastgetError) {
            while window.hasPending, !transfer.control.isInterrupted {
                let before = window.bytesEmitted
                let after = try window.drain(waiting: transfer.options.progressSeconds, unless: { transfer.control.isInterrupted })
                progress(snapshot())
                let now = MonotonicClock.seconds()
                if after > before { lastMove = now }
                if transfer.control.failure != nil, now - lastMove >= transfer.options.ioSeconds { break }
            }
        } catch {
            transfer.control.fail(error)
        }
    }

    /// A file this small is fetched on the calling thread: one request, no worker thread, no
    /// checkpoint but the last (it takes a fraction of a second at any usable speed).
    static let inlineLimit: Int64 = 256 * 1024

    private var runsInline: Bool {
        // The low-speed limit is judged by this thread's ticks, and a worker blocked on a read
        // cannot tick: with a limit, a worker thread does the reading.
        guard workers == 1, window == nil, transfer.options.speedLimit == nil else { return false }
        let remaining = segmented ? table.segments.reduce(0) { $0 + max(0, $1.remaining) } : transfer.resource.length ?? .max
        return remaining <= Coordinator.inlineLimit
    }

    private func runInline(progress: (DownloadProgress) -> Void, events: ([DownloadEvent]) -> Void) throws(FastgetError) {
        transfer.runningWorkers.store(1, ordering: .releasing)
        transfer.mostWorkers.max(1, ordering: .relaxed)
        let worker = SegmentWorker(slot: WorkerSlot(id: 0), transfer: transfer, buffer: buffers.buffer(0), splice: false)
        // Between reads, the worker does the coordinator's rounds on this thread: progress and
        // events every interval, a checkpoint every checkpoint interval (on a slow link even a
        // small file takes a while).
        let interval = transfer.options.progressSeconds
        var lastReport = MonotonicClock.seconds()
        var nextCheckpoint = lastReport + transfer.options.checkpointSeconds
        withoutActuallyEscaping(progress) { progress in
            withoutActuallyEscaping(events) { events in
                worker.tick = { [self] in
                    let now = MonotonicClock.seconds()
                    guard now - lastReport >= interval else { return }
                    lastReport = now
                    if let checkpointer, now >= nextCheckpoint {
                        nextCheckpoint = now + transfer.options.checkpointSeconds
                        if let bytes = try? checkpointer.checkpoint(table) { transfer.post(.checkpoint(bytesOnDisk: bytes)) }
                    }
                    publishEvents(events)
                    progress(snapshot())
                }
                if segmented { worker.run(table: table) } else { worker.runSingleStream(progress: table.segments[0]) }
                worker.tick = nil
                worker.parkKept()
            }
        }
        transfer.workerFinished()
        try throwIfStoppedShort(events)
        publishEvents(events)
        progress(snapshot())
    }

    /// Applies the low-speed limit: shuts down the connections below it (their workers take the
    /// range on a new one), or fails the download when it is below it as a whole.
    private func judgeSpeeds(_ watch: inout LowSpeedWatch, slots: [WorkerSlot], now: Double) {
        guard !transfer.control.isStopped else { return }
        let bodies = slots.map {
            LowSpeedWatch.Body(worker: $0.id, since: $0.bodySince.load(ordering: .acquiring), bytes: $0.bytes.load(ordering: .relaxed))
        }
        let limit = "\(Coordinator.rate(watch.limit)) for \(Coordinator.seconds(watch.seconds)) s"
        switch watch.tick(now: now, downloaded: snapshotBytes, bodies: bodies) {
        case .fine:
            break
        case .fail(let rate):
            transfer.control.fail(FastgetError(.temporary, "the download stayed below \(limit) (\(Coordinator.rate(rate))), the low-speed limit"))
        case .drop(let slow):
            for slot in slots where slow[slot.id] != nil {
                slot.slowDrop.store(true, ordering: .releasing)
                transfer.control.connections.shutdown(slot.id)
                transfer.post(.notice("a connection stayed below \(limit) (\(Coordinator.rate(slow[slot.id]!))); its range goes to a new one"))
            }
        }
    }

    /// `1 byte/s`, `1000 bytes/s`.
    private static func rate(_ bytes: Int64) -> String { bytes == 1 ? "1 byte/s" : "\(bytes) bytes/s" }

    /// `2` for 2 seconds, `1.5` for 1.5.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// The bytes of the file in hand, as progress reports them.
    private var snapshotBytes: Int64 {
        // A stream of unknown length is one segment [0, 0) whose watermark runs past its end.
        transfer.resource.length == nil ? table.segments.first?.written.load(ordering: .acquiring) ?? 0 : table.bytesWritten
    }

    /// Hands what the workers posted since the last call to `events`.
    private func publishEvents(_ events: ([DownloadEvent]) -> Void) {
        let posted = transfer.takeEvents()
        if !posted.isEmpty { events(posted) }
    }

    /// A fixed count whose workers the session could not all give threads at the start takes
    /// the rest as threads free up, while segments wait unclaimed.
    private func regrow(_ crew: WorkerCrew) {
        guard crew.short, crew.active < workers, table.unfinishedCount > crew.active, !transfer.control.isStopped else { return }
        crew.grow(to: workers)
    }

    /// Applies the governor's next change: more workers (as many as the allowance grants), or
    /// fewer (workers whose answer a steal cut retire first, then the newest; their
    /// connections' slots go back to the allowance).
    private func adjust(_ governor: inout ConnectionGovernor, crew: WorkerCrew, reserved: inout Int, now: Double, trace: GovernorTrace?) {
        guard !transfer.control.isStopped, let automatic else { return }
        let remaining = max(0, (transfer.resource.length ?? 0) - table.bytesWritten)
        let tick = GovernorTrace.Tick(
            now: now, bytes: table.bytesWritten, earlier: crew.bytes(startedBefore: governor.changedAt), streaming: crew.streaming,
            remaining: remaining, latency: transfer.latency.seconds, count: governor.count)
        trace?.record(tick)
        guard
            let change = governor.tick(
                now: tick.now, bytes: tick.bytes, earlier: tick.earlier, streaming: tick.streaming, remaining: tick.remaining,
                latency: tick.latency)
        else { return }
        let active = crew.active
        var count = change.count
        var reason = change.reason
        if count > active {
            let granted = automatic.allowance.reserve(count - active)
            if active + granted < count {
                count = active + granted
                governor.limited(to: count, now: now)
                reason += "; the host's connection cap allows \(count)"
            }
            crew.grow(to: count, initialSpeed: table.throughput.load(ordering: .relaxed) / Int64(max(1, active)))
            // Slots held by workers still retiring may leave fewer started than granted, and the
            // session may have had no thread free for the rest.
            let started = crew.active - active
            if started < granted { automatic.allowance.release(granted - started) }
            reserved += started
            if crew.short, crew.active < count {
                // The step is judged as what it is: fewer connections than it asked for.
                governor.limited(to: crew.active, now: now)
                reason += "; the session's thread limit allows \(crew.active)"
            } else if started == 0 {
                return
            }
            count = crew.active
        } else if count < active {
            crew.shrink(to: count) // their connections go back to the cap as they end
        }
        transfer.post(.connectionsChanged(count: count, reason: reason))
    }

    /// Throws the first failure, or `.cancelled`, when the pass stopped short — after a last
    /// checkpoint, so that the rerun continues from what is on disk. (If that checkpoint fails
    /// too, a full disk, the previous journal stays, and it is true.)
    /// The last checkpoint's event goes out with the others, so that observers know what is kept.
    private func throwIfStoppedShort(_ events: ([DownloadEvent]) -> Void) throws(FastgetError) {
        let failure = transfer.control.failure
        guard failure != nil || transfer.control.isStopped else { return }
        var remedy: FastgetError.Remedy?
        if let checkpointer, !transfer.control.resourceChanged, !transfer.control.rangesLost {
            if let bytes = try? checkpointer.checkpoint(table) { transfer.post(.checkpoint(bytesOnDisk: bytes)) }
            if FileSystem.exists(checkpointer.path) { remedy = .resume(journal: checkpointer.path) }
        }
        publishEvents(events)
        throw (failure ?? FastgetError(.cancelled, transfer.control.stopReason)).withRemedy(remedy)
    }

    /// Pushes what each segment wrote since the last tick towards the disk, off the workers' path:
    /// every `writebackStep`, and the rest of a segment as soon as it is complete, so that the
    /// final fsync finds little left to write.
    private func startWriteback(_ flushed: inout [ObjectIdentifier: Int64]) {
        for segment in table.segments {
            let written = segment.written.load(ordering: .acquiring)
            let done = flushed[ObjectIdentifier(segment)] ?? segment.start
            if let range = Coordinator.writeback(written: written, end: segment.end.load(ordering: .acquiring), flushed: done) {
                transfer.output.startWriteback(range)
                flushed[ObjectIdentifier(segment)] = written
            }
        }
    }

    /// What of a segment to start writing back now, if anything: the bytes since the last
    /// writeback once they reach `writebackStep`, or whatever is left once it is complete.
    static func writeback(written: Int64, end: Int64, flushed: Int64) -> ByteRange? {
        guard written > flushed, written - flushed >= writebackStep || written >= end else { return nil }
        return ByteRange(start: flushed, end: written)
    }

    /// Each segment's speed since the last tick, smoothed, for the thieves' time estimates.
    private func measureSpeeds(_ sampled: inout [ObjectIdentifier: Int64], seconds: Double) {
        guard seconds > 0 else { return }
        for segment in table.segments {
            let written = segment.written.load(ordering: .relaxed)
            let key = ObjectIdentifier(segment)
            defer { sampled[key] = written }
            guard let before = sampled[key] else { continue }
            let current = Double(written - before) / seconds
            let previous = Double(segment.speed.load(ordering: .relaxed))
            let smoothed = previous == 0 ? current : 0.5 * previous + 0.5 * current
            segment.speed.store(Int64(max(1, smoothed)), ordering: .relaxed)
        }
    }

    /// The whole download's speed since the last tick, smoothed, for the thieves' share.
    private func measureThroughput(_ total: inout Int64, seconds: Double) {
        guard seconds > 0 else { return }
        let now = table.bytesWritten
        defer { total = now }
        let current = Double(now - total) / seconds
        let previous = Double(table.throughput.load(ordering: .relaxed))
        let smoothed = previous == 0 ? current : 0.5 * previous + 0.5 * current
        table.throughput.store(Int64(max(1, smoothed)), ordering: .relaxed)
    }

    /// Seconds between looks while an automatic count is being measured.
    static let measuringTick = 0.02

    /// The first checkpoint of a pass comes after this many seconds at most…
    static let firstCheckpointDelay = 0.25
    /// …or once this many bytes came in, if sooner.
    static let firstCheckpointBytes: Int64 = 1 << 20

    /// Bytes a segment accumulates before the coordinator starts their writeback.
    static let writebackStep: Int64 = 1 << 20

    func snapshot() -> DownloadProgress {
        let elapsed = MonotonicClock.seconds() - started
        return DownloadProgress(
            totalBytes: transfer.resource.length,
            // A stream counts what went out: the window may hold more.
            completedBytes: window?.bytesEmitted ?? snapshotBytes,
            elapsed: elapsed, totalElapsed: earlier + elapsed,
            segments: table.segments.map { segment in
                let end = segment.end.load(ordering: .relaxed)
                let speed = segment.speed.load(ordering: .relaxed)
                // A speed of 1 means measured, and nothing came (measured speeds are at least 1).
                let state: SegmentProgress.State
                if segment.isComplete {
                    state = .done
                } else if !segment.owned.load(ordering: .relaxed) {
                    state = .waiting
                } else if speed == 1 {
                    state = .stalled
                } else {
                    state = .active
                }
                return SegmentProgress(
                    range: ByteRange(start: segment.start, end: end), written: segment.writtenWithinEnd,
                    speed: speed, state: state, stolenFrom: end < segment.plannedEnd,
                    hedged: segment.fromHedge || segment.hedged.load(ordering: .relaxed))
            },
            sources: transfer.sourceFigures())
    }
}
