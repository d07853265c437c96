/// Connections a download may hold to its host, shared with the other downloads to that host
/// (a session's per-host cap). Never blocks: it grants what is free now.
protocol ConnectionAllowance: Sendable {
    /// Takes up to `count` connections; returns how many were granted (possibly 0).
    func reserve(_ count: Int) -> Int
    /// Gives back `count` connections taken earlier.
    func release(_ count: Int)
}

/// The allowances of several hosts as one, for a download with mirrors: its workers spread
/// over the servers in turn, so each connection it takes comes from the host holding the fewest
/// of them that still has one free, and each it gives back goes to the one holding the most.
final class SpreadAllowance: ConnectionAllowance {
    private let hosts: [any ConnectionAllowance]
    private let held: Locked<[Int]>

    init(_ hosts: [any ConnectionAllowance]) {
        precondition(!hosts.isEmpty)
        self.hosts = hosts
        held = Locked(hosts.map { _ in 0 })
    }

    func reserve(_ count: Int) -> Int {
        held.withLock { held in
            var granted = 0
            var full = Set<Int>()
            while granted < count, let index = held.indices.filter({ !full.contains($0) }).min(by: { held[$0] < held[$1] }) {
                if hosts[index].reserve(1) == 1 {
                    held[index] += 1
                    granted += 1
                } else {
                    full.insert(index)
                }
            }
            return granted
        }
    }

    func release(_ count: Int) {
        held.withLock { held in
            for _ in 0..<count {
                guard let index = held.indices.max(by: { held[$0] < held[$1] }), held[index] > 0 else { return }
                hosts[index].release(1)
                held[index] -= 1
            }
        }
    }
}
