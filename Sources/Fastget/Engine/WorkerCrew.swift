import Synchronization

/// One worker's place in a pass: its buffer index and id, and the flags the coordinator and
/// the worker share.
final class WorkerSlot: Sendable {
    let id: Int
    /// `Role`'s raw value: changed only by compare-and-exchange, so that a worker failing out and
    /// the coordinator promoting it cannot both win.
    private let role: Atomic<UInt8>
    /// The primary worker retries and stays until every byte is in; an expendable one (added by
    /// an automatic count) hands its range back and ends when its connection fails. The
    /// coordinator may pass the primary role to another worker before it retires the primary.
    enum Role: UInt8 {
        case primary, expendable, failedOut
    }
    /// Set by the coordinator: end at the next read, handing the segment back to the table.
    let retire = Atomic<Bool>(false)
    /// Set by the worker once it has written body bytes.
    let streamed = Atomic<Bool>(false)
    /// Body bytes the worker wrote, and when it was started (for the automatic count's
    /// measurement of the connections there before a step).
    let bytes = Atomic<Int64>(0)
    let started = MonotonicClock.seconds()
    /// When the body of the worker's current response started (monotonic nanoseconds); 0
    /// while it has none (connecting, waiting for an answer, between ranges).
    let bodySince = Atomic<UInt64>(0)
    /// Set by the coordinator before it shuts down this worker's connection for being below
    /// the low-speed limit: the failure that follows is that drop, not the server's.
    let slowDrop = Atomic<Bool>(false)
    /// Set by the worker while the response it reads runs past its segment's end (a steal
    /// moved the end down): that connection ends with the segment, so this worker is the
    /// first to retire when the count goes down.
    let cut = Atomic<Bool>(false)
    /// Set by the worker's thread as its last act.
    let finished = Atomic<Bool>(false)

    init(id: Int, expendable: Bool = false) {
        self.id = id
        role = Atomic((expendable ? Role.expendable : .primary).rawValue)
    }

    /// The worker's role now.
    var currentRole: Role { Role(rawValue: role.load(ordering: .acquiring))! }
    /// Whether this worker hands its range back when its connection fails.
    var expendable: Bool { currentRole == .expendable }
    /// Whether this worker ended by handing its range back after a failure.
    var failedOut: Bool { currentRole == .failedOut }

    /// An expendable worker's failure: it ends, handing its range back.
    /// - Returns: false when it was made primary meanwhile (its failure is the download's).
    func failOut() -> Bool {
        role.compareExchange(expected: Role.expendable.rawValue, desired: Role.failedOut.rawValue, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// Makes an expendable worker the primary one.
    /// - Returns: false when it has failed out already.
    func promote() -> Bool {
        role.compareExchange(expected: Role.expendable.rawValue, desired: Role.primary.rawValue, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// A response's body starts: the low-speed clock of this connection starts now. A drop
    /// meant for the previous body is void.
    /// - Returns: now, in monotonic seconds.
    @discardableResult
    func enterBody() -> Double {
        slowDrop.store(false, ordering: .relaxed)
        let now = MonotonicClock.nanoseconds()
        bodySince.store(max(1, now), ordering: .releasing)
        return Double(now) / 1e9
    }

    /// The body ended (or failed): no low-speed clock runs until the next one starts.
    func leaveBody() { bodySince.store(0, ordering: .releasing) }
}

/// The worker threads of one pass, run by the coordinator thread only: started up to the
/// buffer pool's size, retired (`retiring`), and joined once they end. A slot (its id and
/// buffer) is used again only after its thread was joined.
final class WorkerCrew {
    private let transfer: Transfer
    private let table: SegmentTable
    private let buffers: BufferPool
    private let segmented: Bool
    private let splice: Bool
    private let automatic: Bool
    /// The session's worker threads, shared with its other downloads.
    private let threads: ThreadAllowance
    /// Threads started and not yet joined, by slot id.
    private var running: [Int: (thread: PosixThread, slot: WorkerSlot)] = [:]
    /// Whether the last `grow` stopped short because the session had no thread free.
    private(set) var short = false

    init(
        transfer: Transfer, table: SegmentTable, buffers: BufferPool, segmented: Bool, splice: Bool, automatic: Bool,
        threads: ThreadAllowance
    ) {
        self.automatic = automatic
        self.threads = threads
        self.transfer = transfer
        self.table = table
        self.buffers = buffers
        self.segmented = segmented
        self.splice = splice
    }

    /// Workers started and not asked to retire.
    var active: Int { running.values.filter { !$0.slot.retire.load(ordering: .relaxed) }.count }

    /// The slots of the workers started and not yet joined.
    var slots: [WorkerSlot] { running.values.map(\.slot) }

    /// Active workers that have delivered body bytes.
    var streaming: Int {
        running.values.filter { !$0.slot.retire.load(ordering: .relaxed) && $0.slot.streamed.load(ordering: .relaxed) }.count
    }

    /// Bytes written by the workers still running that were started before `time` (one that
    /// ended takes its bytes with it: the count may go down).
    func bytes(startedBefore time: Double) -> Int64 {
        running.values.reduce(0) { $0 + ($1.slot.started < time ? $1.slot.bytes.load(ordering: .relaxed) : 0) }
    }

    /// Starts workers until `count` are active (at most one per buffer), each with a thread
    /// from the session's allowance: the first always, the others while one is free (`short`
    /// when not). A thread that cannot start fails the transfer; those started already see the
    /// stop and end.
    func grow(to count: Int, initialSpeed: Int64 = 0) {
        var id = 0
        short = false
        while active < count && id < buffers.count {
            defer { id += 1 }
            guard running[id] == nil else { continue }
            guard threads.take(always: alive == 0) else {
                short = true
                return
            }
            // One primary at a time: the first worker started, or the one a shrink promoted.
            let slot = WorkerSlot(id: id, expendable: automatic && alive > 0)
            transfer.runningWorkers.add(1, ordering: .releasing)
            do {
                let thread = try PosixThread { [transfer, table, buffers, segmented, splice, threads] in
                    let worker = SegmentWorker(
                        slot: slot, transfer: transfer, buffer: buffers.buffer(slot.id), splice: splice,
                        initialSpeed: initialSpeed)
                    if segmented { worker.run(table: table) } else { worker.runSingleStream(progress: table.segments[0]) }
                    worker.parkKept()
                    // Given back before it counts as finished: a `grow` that finds none alive
                    // takes its first thread beyond the limit, and this one must not still hold one.
                    threads.give()
                    slot.finished.store(true, ordering: .releasing)
                    transfer.workerFinished()
                }
                running[id] = (thread, slot)
                transfer.mostWorkers.max(active, ordering: .relaxed)
            } catch {
                threads.give()
                transfer.runningWorkers.subtract(1, ordering: .releasing)
                transfer.control.fail(FastgetError(.localIO, "cannot start a worker thread: \(error.reason)").caused(by: error))
                return
            }
        }
    }

    /// Asks active workers to end until `count` remain (`WorkerCrew.retiring`); each hands its
    /// segment back at its next read. A primary chosen to retire first passes its role on.
    func shrink(to count: Int) {
        // One look at each worker: the choice and the primary it names come from the same one.
        let active = running.values.map(\.slot).compactMap { slot -> (slot: WorkerSlot, expendable: Bool)? in
            let role = slot.currentRole
            return slot.retire.load(ordering: .relaxed) || role == .failedOut ? nil : (slot, role == .expendable)
        }
        let choice = WorkerCrew.retiring(
            active.map {
                Candidate(
                    id: $0.slot.id, expendable: $0.expendable, cut: $0.slot.cut.load(ordering: .relaxed),
                    streaming: $0.slot.bodySince.load(ordering: .relaxed) != 0)
            }, keeping: count)
        var chosen = Set(choice.retire)
        if let heir = choice.heir, let primary = active.first(where: { chosen.contains($0.slot.id) && !$0.expendable }),
            active.first(where: { $0.slot.id == heir })?.slot.promote() != true
        {
            chosen.remove(primary.slot.id) // the heir failed out meanwhile: its end lowers the count too
        }
        for entry in active where chosen.contains(entry.slot.id) {
            entry.slot.retire.store(true, ordering: .releasing)
        }
    }

    /// A worker as `retiring` sees it: whether it is expendable (not the primary), whether its
    /// response runs past its segment (`WorkerSlot.cut`), and whether it is reading a body now.
    struct Candidate: Equatable {
        let id: Int
        let expendable: Bool
        let cut: Bool
        var streaming = true
    }

    /// The ids of the workers to retire so that `count` remain: first those whose connection
    /// ends with their segment anyway (`WorkerSlot.cut`: the rest of its response was stolen, so
    /// the next range it took would need a new connection and a new slow start), then the newest
    /// expendable ones. The ones that stay go on to the ranges handed back over the connection
    /// they have. The primary worker (not expendable: it retries) retires only when it is cut and
    /// a worker that stays is neither cut nor waiting for an answer (one whose server holds its
    /// request may never answer): that one, the `heir`, becomes primary. Otherwise it stays (a
    /// cut survivor is no better than the primary).
    static func retiring(_ workers: [Candidate], keeping count: Int) -> (retire: [Int], heir: Int?) {
        let surplus = max(0, workers.count - max(1, count))
        let order = workers.filter { $0.expendable || $0.cut }.sorted { $0.cut != $1.cut ? $0.cut : $0.id > $1.id }
        var retire = Array(order.prefix(surplus))
        guard let primary = retire.firstIndex(where: { !$0.expendable }) else { return (retire.map(\.id), nil) }
        let kept = workers.filter { worker in !retire.contains { $0.id == worker.id } }
        if let heir = kept.first(where: { !$0.cut && $0.streaming }) { return (retire.map(\.id), heir.id) }
        retire.remove(at: primary)
        if let next = order.dropFirst(surplus).first(where: \.expendable) { retire.append(next) }
        return (retire.map(\.id), nil)
    }

    /// Threads started and not yet ended (retiring ones still hold a connection).
    var alive: Int { running.values.filter { !$0.slot.finished.load(ordering: .acquiring) }.count }

    /// Joins the workers that have ended, freeing their slots; returns how many of them ended
    /// because their connection failed.
    func reap() -> Int {
        var failed = 0
        for (id, entry) in running where entry.slot.finished.load(ordering: .acquiring) {
            entry.thread.join()
            running[id] = nil
            if entry.slot.failedOut { failed += 1 }
        }
        return failed
    }

    /// Joins every worker (once the transfer's running count is zero, they have all ended).
    func joinAll() {
        for entry in running.values { entry.thread.join() }
        running = [:]
    }
}
