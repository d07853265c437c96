/// Idle keep-alive connections, by origin, for the next request of any worker.
package final class ConnectionPool: Sendable {
    private let idle = Locked<[HTTPConnection]>([])
    private let capacity: Int

    package init(capacity: Int = 64) { self.capacity = capacity }

    /// An idle connection to `origin`, if one is parked.
    package func take(origin: String) -> HTTPConnection? {
        idle.withLock { connections in
            guard let index = connections.lastIndex(where: { $0.origin == origin }) else { return nil }
            return connections.remove(at: index)
        }
    }

    /// Parks `connection` if it can carry another request; otherwise drops (closes) it.
    package func park(_ connection: HTTPConnection) {
        guard connection.isReusable else { return }
        idle.withLock { connections in
            if connections.count < capacity { connections.append(connection) }
        }
    }

    /// Closes every idle connection.
    package func removeAll() {
        idle.withLock { $0.removeAll() }
    }
}
