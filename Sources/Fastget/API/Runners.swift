/// The threads a queue runs its downloads on, kept from one download to the next (at most
/// `limit`, the queue's active downloads): a list of small files must not pay a thread's start
/// and teardown for every file. A thread idle for `idleSeconds` ends.
final class Runners: @unchecked Sendable {
    private let monitor = Monitor()
    private let limit: Int
    // Guarded by `monitor`.
    private var jobs: [@Sendable () -> Void] = []
    private var threads = 0
    private var idle = 0

    static let idleSeconds = 5.0

    init(limit: Int) { self.limit = limit }

    /// Runs `job` on a kept thread, or a new one while fewer than `limit` exist (otherwise on
    /// the first to become free). Returns false when no thread could be started for it.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let spawn = monitor.locked { () -> Bool in
            jobs.append(job)
            guard jobs.count > idle, threads < limit else {
                // A broadcast, not pthread_cond_signal: glibc before 2.41 can lose a signal
                // (BZ #25847), which would leave this job until an idle thread's deadline.
                monitor.broadcast()
                return false
            }
            threads += 1
            return true
        }
        guard spawn else { return true }
        do {
            _ = try PosixThread(stackSize: 1 << 20) { [self] in serve() }
            return true
        } catch {
            return monitor.locked {
                threads -= 1
                // Unless another thread exists to take it, the job is dropped: the caller fails it.
                if threads > 0 { return true }
                jobs.removeAll()
                return false
            }
        }
    }

    private func serve() {
        while let job = next() { job() }
    }

    private func next() -> (@Sendable () -> Void)? {
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
