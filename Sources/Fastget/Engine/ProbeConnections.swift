/// The connection a probe is waiting on, for a stop to shut down; one registered after the
/// stop is shut down at once.
final class ProbeConnections: Sendable {
    private let current = Locked<(stopped: Bool, connection: (any Interruptible)?)>((false, nil))

    func track(_ connection: (any Interruptible)?) {
        current.withLock { current in
            current.connection = connection
            if current.stopped { connection?.shutdown() }
        }
    }

    func stop() {
        current.withLock { current in
            current.stopped = true
            current.connection?.shutdown()
        }
    }
}
