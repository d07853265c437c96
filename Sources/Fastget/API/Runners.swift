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

    private let monitor = Monitor()
    private let limit: Int
    private let spawn: Spawn
    // Guarded by `monitor`.
    private var jobs: [Job] = []
    private var threads = 0
    private var idle = 0

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
        let starting = monitor.locked { () -> Bool in
            jobs.append(Job(run: job, cannotStart: cannotStart))
            guard jobs.count > idle, threads < limit else {
                // A broadcast, not pthread_cond_signal: glibc before 2.41 can lose a signal
                // (BZ #25847), which would leave this job until an idle thread's deadline.
                monitor.broadcast()
                return false
            }
            threads += 1
            return true
        }
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
        while let job = next() { job.run() }
    }

    private func next() -> Job? {
        monitor.locked {
            let deadline = MonotonicClock.seconds() + Runners.idleSeconds
            while jobs.isEmpty {
                idle += 1
                let signalled = monitor.wait(until: deadline)
                idle -= 1
                if !signalled && jobs.isEmpty {
                    threads -= 1
                    return nil
                }
            }
            return jobs.removeFirst()
        }
    }
}
