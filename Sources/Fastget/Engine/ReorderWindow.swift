/// A fixed ring of `capacity` bytes between the workers, which write at any offset within the
/// window `[emitted, emitted + capacity)` and wait while their bytes lie beyond it, and the
/// coordinator, which writes the bytes to the descriptor strictly in file order. Memory stays at
/// `capacity` whatever the file's size; the head of the file always fits, so no one waits
/// forever. Each offset is written once (streaming runs without steals or hedges).
final class ReorderWindow: WriteTarget, @unchecked Sendable {
    let capacity: Int
    private let ring: UnsafeMutableRawBufferPointer
    private let writer: StreamWriter
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var emitted: Int64 = 0
    /// Filled ranges not yet emitted, by start offset.
    private var filled: [Int64: Int64] = [:]
    private var stopped = false
    private let digest: Digest?

    /// - Parameter checksum: compute this digest of the bytes as they go out.
    init(descriptor: Int32, capacity: Int, checksum: Checksum.Algorithm?) {
        writer = StreamWriter(descriptor: descriptor)
        self.capacity = capacity
        ring = .allocate(byteCount: capacity, alignment: 64)
        digest = checksum.flatMap { Digest($0.digest) }
    }

    deinit { ring.deallocate() }

    /// A worker waiting for room looks again after this long even unwoken (room and a stop
    /// both broadcast; this only bounds a missed wake-up).
    static let recheckInterval = 1.0

    /// Bytes written to the descriptor so far.
    var bytesEmitted: Int64 { monitor.locked { emitted } }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(FastgetError) {
        var done = 0
        while done < bytes.count {
            // At most half the ring per piece, so a piece at the head always fits.
            let piece = min(bytes.count - done, capacity / 2)
            let start = offset + Int64(done)
            let ok = monitor.locked { () -> Bool in
                while !stopped && start + Int64(piece) > emitted + Int64(capacity) {
                    monitor.wait(until: MonotonicClock.seconds() + ReorderWindow.recheckInterval)
                }
                guard !stopped else { return false }
                // Copy under the lock: the writer may not reuse these ring bytes meanwhile.
                let at = Int(start % Int64(capacity))
                let first = min(piece, capacity - at)
                let source = UnsafeRawBufferPointer(rebasing: bytes[(done)..<(done + piece)])
                (ring.baseAddress! + at).copyMemory(from: source.baseAddress!, byteCount: first)
                if first < piece {
                    ring.baseAddress!.copyMemory(from: source.baseAddress! + first, byteCount: piece - first)
                }
                filled[start] = start + Int64(piece)
                monitor.broadcast()
                return true
            }
            guard ok else { throw FastgetError(.cancelled, "the stream was stopped") }
            done += piece
        }
    }

    func write(from pipe: SplicePipe, at offset: Int64, count: Int) throws(FastgetError) {
        throw FastgetError(.localIO, "cannot splice into an ordered stream")
    }

    func startWriteback(_ range: ByteRange) {}

    /// Writes to the descriptor whatever is ready in order, for up to `seconds`: it returns by
    /// then even while bytes are ready (a slow reader must not hold the caller's other duties:
    /// the low-speed limit, a stop) and as soon as `stopped()` holds. Returns the bytes
    /// emitted so far: exactly what the descriptor took.
    @discardableResult
    func drain(waiting seconds: Double, unless stopped: () -> Bool = { false }) throws(FastgetError) -> Int64 {
        let deadline = MonotonicClock.seconds() + seconds
        while !stopped() {
            // Take the next run of ready bytes (without holding the lock while writing).
            let run = monitor.locked { () -> (start: Int64, end: Int64)? in
                while filled[emitted] == nil && !self.stopped {
                    if !monitor.wait(until: deadline) { break }
                }
                guard let end = filled[emitted] else { return nil }
                return (emitted, end)
            }
            guard let run else { break }
            let end = try emit(run.start, run.end, until: deadline, unless: stopped)
            if end > run.start {
                monitor.locked {
                    filled[run.start] = nil
                    if end < run.end { filled[end] = run.end }
                    emitted = end
                    monitor.broadcast()
                }
            }
            if MonotonicClock.seconds() >= deadline { break }
        }
        return bytesEmitted
    }

    /// Whether bytes wait in the window that have not been written out.
    var hasPending: Bool { monitor.locked { !filled.isEmpty } }

    /// Wakes and refuses every writer (the transfer stopped).
    func stop() {
        monitor.locked {
            stopped = true
            monitor.broadcast()
        }
    }

    /// The digest of everything emitted, in hex.
    func finishDigest() -> String? { digest?.finish() }

    /// Writes `[start, end)` from the ring until it is out, `deadline` passes or `stopped()`
    /// holds, looking at both after each write and at least every `stopCheck` while the
    /// descriptor has no room. Returns where it got to.
    private func emit(_ start: Int64, _ end: Int64, until deadline: Double, unless stopped: () -> Bool) throws(FastgetError) -> Int64 {
        var position = start
        while position < end {
            let at = Int(position % Int64(capacity))
            let count = min(Int(end - position), capacity - at)
            let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(ring)[at..<(at + count)])
            let written: Int
            do {
                written = try writer.write(bytes, waiting: min(ReorderWindow.stopCheck, deadline - MonotonicClock.seconds()))
            } catch {
                throw FastgetError(.localIO, "cannot write the stream: \(error.reason)").caused(by: error)
            }
            digest?.update(UnsafeRawBufferPointer(rebasing: bytes[0..<written]))
            position += Int64(written)
            // A slow reader takes a piece at a time: look at the time and the stop after each.
            if stopped() || MonotonicClock.seconds() >= deadline { break }
        }
        return position
    }

    /// How long a write waits for room before it looks at the stop again.
    static let stopCheck = 0.05
}
