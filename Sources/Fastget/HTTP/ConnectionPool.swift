/// Idle keep-alive connections, by origin, for the next request of any worker (and, in a
/// shared session, of any download).
package final class ConnectionPool: Sendable {
    private let idle = Locked<[(connection: HTTPConnection, since: Double)]>([])
    private let capacity: Int

    /// Seconds a connection may wait idle and still be reused: below common servers' keep-alive
    /// timeouts (nginx 75 s, Apache 5 s is the exception: a connection it dropped costs one
    /// failed request, which is retried on a new connection at once).
    package static let maximumIdle = 30.0

    package init(capacity: Int = 64) { self.capacity = capacity }

    /// An idle connection to `origin`, if one is parked and not stale. Stale ones are closed.
    /// `publicOnly`: only one opened to public addresses only (`HTTPConnection.publicOnly`).
    package func take(origin: String, publicOnly: Bool = false) -> HTTPConnection? {
        let now = MonotonicClock.seconds()
        return idle.withLock { connections in
            connections.removeAll { now - $0.since > ConnectionPool.maximumIdle }
            let index = connections.lastIndex { $0.connection.origin == origin && ($0.connection.publicOnly || !publicOnly) }
            guard let index else { return nil }
            return connections.remove(at: index).connection
        }
    }

    /// Parks `connection` if it can carry another request; otherwise drops (closes) it. When
    /// the pool is full, the longest idle connection goes.
    package func park(_ connection: HTTPConnection) {
        guard connection.isReusable else { return }
        let now = MonotonicClock.seconds()
        idle.withLock { connections in
            connections.removeAll { now - $0.since > ConnectionPool.maximumIdle }
            if connections.count >= capacity { connections.removeFirst() }
            connections.append((connection, now))
        }
    }

    /// Closes every idle connection.
    package func removeAll() {
        idle.withLock { $0.removeAll() }
    }
}
