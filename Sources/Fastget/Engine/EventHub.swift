/// The observers of one download: callbacks and `AsyncStream` continuations. Events are handed
/// out in the order they are published; observers added later get only later events.
final class EventHub: Sendable {
    private let observers = Locked<[Int: @Sendable (DownloadEvent) -> Void]>([:])
    private let nextToken = Locked(0)

    @discardableResult
    func add(_ observer: @escaping @Sendable (DownloadEvent) -> Void) -> Int {
        let token = nextToken.withLock { token in
            token += 1
            return token
        }
        observers.withLock { $0[token] = observer }
        return token
    }

    func remove(_ token: Int) { observers.withLock { $0[token] = nil } }

    /// How many observers are registered.
    var count: Int { observers.withLock { $0.count } }

    func publish(_ event: DownloadEvent) {
        let current = observers.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        for observer in current { observer(event) }
    }
}
