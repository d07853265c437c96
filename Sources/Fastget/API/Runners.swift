/// The threads a queue runs its downloads on, kept from one download to the next (at most
/// `limit`, the queue's active downloads): a list of small files must not pay a thread's start
/// and teardown for every file. A thread idle for `idleSeconds` ends.
final class Runners: @unchecked Sendable {
    /// Starts a thread that runs `body` (`PosixThread` outside tests).
    typealias Spawn = (@escaping @Sendable () -> Void) throws(SystemError) -> Void

    private struct Job {
        let run: @Sendable () -> Void
        let cannotStart: @Sendable () -> Void
    }

    /// An idle thread's wake-up: each waits on a condition of its own, so that a job wakes
    /// one thread, not every idle one (up to twice the queue's active count) to find which.
    private final class Sleeper {
        let condition = Monitor.Condition()
        /// Chosen by `submit` for a job (guarded by `monitor`).
        var woken = false
    }

    private let monitor = Monitor()
    private let limit: Int
    private let spawn: Spawn
    // Guarded by `monitor`.
    private var jobs: [Job] = []
    private var threads = 0
    /// Idle threads no job has woken yet, the one idle the shortest time last.
    private var sleepers: [Sleeper] = []
    /// Threads woken for a job that have not taken one yet.
    private var waking = 0

    static let idleSeconds = 5.0

    init(limit: Int, spawn: @escaping Spawn = Runners.startThread) {
        self.limit = limit
        self.spawn = spawn
    }

    static func startThread(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        _ = try PosixThread(stackSize: 1 << 20, body)
    }

    /// Runs `job` on a kept thread, or a new one while fewer than `limit` exist (otherwise on
    /// the first to become free). When a thread cannot be started and no other is left to take
    /// the jobs waiting (this one, and those whose thread was being started meanwhile), each of
    /// them gets its `cannotStart` instead, on this thread.
    func submit(_ job: @escaping @Sendable () -> Void, cannotStart: @escaping @Sendable () -> Void) {
        let (starting, woken) = monitor.locked { () -> (Bool, Sleeper?) in
            jobs.append(Job(run: job, cannotStart: cannotStart))
            if let sleeper = sleepers.popLast() {
                sleeper.woken = true
                waking += 1
                return (false, sleeper)
            }
            // Otherwise a thread woken, or busy, takes it when free, or a new one while
            // fewer than `limit` exist.
            guard jobs.count > waking, threads < limit else { return (false, nil) }
            threads += 1
            return (true, nil)
        }
        // After the unlock, so that the woken thread does not wake into a held mutex. A
        // broadcast to the sleeper's own condition, which it alone waits on: glibc before 2.41
        // can lose a pthread_cond_signal (BZ #25847). Should it have timed out meanwhile, it
        // sees `woken` and takes the job, or, when a busy thread took it first, ends (its
        // deadline has passed); a late broadcast finds it waiting again, at worst, and reads as
        // a spurious wake.
        if let woken { monitor.broadcast(woken.condition) }
        guard starting else { return }
        do {
            try spawn { [self] in serve() }
        } catch {
            let stranded = monitor.locked { () -> [Job] in
                threads -= 1
                // A thread running, or being started, takes the waiting jobs in turn.
                guard threads == 0 else { return [] }
                defer { jobs.removeAll() }
                return jobs
            }
            for job in stranded { job.cannotStart() }
        }
    }

    private func serve() {
        let sleeper = Sleeper()
        while let job = next(sleeper) { job.run() }
    }

    private func next(_ sleeper: Sleeper) -> Job? {
        monitor.locked {
            let deadline = MonotonicClock.seconds() + Runners.idleSeconds
            while jobs.isEmpty {
                sleeper.woken = false
                sleepers.append(sleeper)
                let signalled = monitor.wait(on: sleeper.condition, until: deadline)
                if sleeper.woken {
                    waking -= 1
                } else {
                    // Timed out, or woken spuriously: not chosen, so still among the sleepers.
                    sleepers.removeAll { $0 === sleeper }
                    if !signalled && jobs.isEmpty {
                        threads -= 1
                        return nil
                    }
                }
            }
            return jobs.removeFirst()
        }
    }
}
