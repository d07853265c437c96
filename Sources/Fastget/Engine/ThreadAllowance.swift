/// The worker threads the downloads of one session may run at once, together (each worker is
/// one thread with one connection). A download with no worker running always gets one, even
/// beyond the limit, so that no download waits mid-run for another's end; its others only
/// while fewer than `limit` are taken. So N downloads running at once hold at most
/// `limit` + N − 1 worker threads. Never blocks.
final class ThreadAllowance: Sendable {
    let limit: Int
    /// Taken now, and the most taken at once so far.
    private let used = Locked((now: 0, most: 0))

    init(limit: Int) { self.limit = limit }

    /// One thread: granted when one is free, or `always`.
    func take(always: Bool) -> Bool {
        used.withLock { used in
            guard always || used.now < limit else { return false }
            used.now += 1
            used.most = max(used.most, used.now)
            return true
        }
    }

    /// Gives back a thread taken with `take`.
    func give() { used.withLock { $0.now -= 1 } }

    /// Threads taken and not given back.
    var inUse: Int { used.withLock { $0.now } }
    /// The most threads taken at once so far.
    var most: Int { used.withLock { $0.most } }

    /// The limit unless another is given (`Session.defaultWorkerThreads`).
    static let defaultLimit = 128

    /// The allowance of the downloads made without a session: one for the whole process.
    static let shared = ThreadAllowance(limit: defaultLimit)
}
