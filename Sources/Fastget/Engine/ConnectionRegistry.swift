/// The connections threads are blocked on, one slot per thread (a worker's id, or the probe's),
/// so that a stop can shut them down and the blocked calls return at once. A connection
/// registered after the stop is shut down as it arrives.
final class ConnectionRegistry: Sendable {
    private let state = Locked<(stopped: Bool, connections: [Int: any Interruptible])>((false, [:]))

    /// Registers the connection slot `slot` is using now (nil when it has none).
    func track(_ slot: Int, _ connection: (any Interruptible)?) {
        state.withLock { state in
            state.connections[slot] = connection
            if state.stopped { connection?.shutdown() }
        }
    }

    /// Shuts down the connection `slot` is using now, if any: its blocked call returns.
    func shutdown(_ slot: Int) {
        state.withLock { state in state.connections[slot]?.shutdown() }
    }

    /// Shuts down every registered connection, and every one registered from now on.
    func stop() {
        state.withLock { state in
            state.stopped = true
            for connection in state.connections.values { connection.shutdown() }
        }
    }
}
