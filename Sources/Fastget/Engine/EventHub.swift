/// The observers of one download (callbacks and `AsyncStream` continuations) and the events on
/// their way to them.
///
/// Events are delivered one at a time, in the order they were published, by one thread at a
/// time: the thread that publishes delivers (the coordinator, for a run), unless a delivery is
/// under way on another thread, which then delivers the new event after what it holds. An
/// observer gets only events published after it was added. Removed, it is not called again:
/// each call is decided under the lock right before it is made, so a removal by an observer
/// (on the delivering thread) stops every later call, the rest of the same event's included.
/// A removal on another thread does not wait for a call that is running, or was decided an
/// instant before the removal took the lock and is about to run: that one call may still
/// happen; none is decided after `remove` returns.
final class EventHub: Sendable {
    /// A registration's number: unique in the process (a token of another hub removes nothing
    /// here), and increasing, which is how an event knows the observers it was published to.
    private static let lastToken = Locked(0)

    private struct Item: Sendable {
        let event: DownloadEvent?
        /// The newest observer registered when it was published.
        let newest: Int
        let then: (@Sendable () -> Void)?
    }

    private struct State: Sendable {
        var observers: [Int: @Sendable (DownloadEvent) -> Void] = [:]
        /// The tokens of `observers`, in increasing order (the order of their calls).
        var order: [Int] = []
        /// What `remove` calls for an observer that asked to know.
        var removals: [Int: @Sendable () -> Void] = [:]
        var newest = 0
        var pending: [Item] = []
        var delivering = false

        /// True when something is pending and no delivery is under way: the caller delivers.
        mutating func startsDelivery() -> Bool {
            guard !delivering, !pending.isEmpty else { return false }
            delivering = true
            return true
        }
    }

    private let state = Locked(State())

    deinit {
        // A download let go before its final event (never started, or left paused): handlers
        // that wait for its events elsewhere (on an actor) end instead of waiting forever.
        let removals = state.withLock { Array($0.removals.values) }
        for removal in removals { removal() }
    }

    /// A number no other registration in the process has (an observer's, or a queue's handler's).
    static func newToken() -> Int {
        lastToken.withLock { token in
            token += 1
            return token
        }
    }

    /// Registers `observer`; `removed` is called when `remove` takes it out.
    @discardableResult
    func add(_ observer: @escaping @Sendable (DownloadEvent) -> Void, removed: (@Sendable () -> Void)? = nil) -> Int {
        // The token is taken under this hub's lock: two adds on different threads then register
        // in the order of their tokens, so `newest` never goes back (an observer with a token
        // above it would hear no event at all).
        state.withLock { state in
            let token = EventHub.newToken()
            state.observers[token] = observer
            state.order.append(token)
            state.removals[token] = removed
            state.newest = token
            return token
        }
    }

    func remove(_ token: Int) {
        let removed = state.withLock { state in
            if state.observers.removeValue(forKey: token) != nil { state.order.removeAll { $0 == token } }
            return state.removals.removeValue(forKey: token)
        }
        removed?()
    }

    /// How many observers are registered.
    var count: Int { state.withLock { $0.observers.count } }

    /// Delivers `event` on the calling thread (see the type's comment for the exception).
    func publish(_ event: DownloadEvent) {
        let starts = state.withLock { state in
            state.pending.append(Item(event: event, newest: state.newest, then: nil))
            return state.startsDelivery()
        }
        if starts { drain() }
    }

    /// Delivers `events`, then runs `then`, on the calling thread (see the type's comment for
    /// the exception).
    func publish(_ events: [DownloadEvent], then: (@Sendable () -> Void)? = nil) {
        if post(events, then: then) { drain() }
    }

    /// Queues `events` and then `then` for delivery and returns at once. True: no delivery is
    /// under way, and the caller must call `drain()` (on another thread, for a delivery that
    /// must not happen inside the caller's call). Safe to call holding a lock an observer
    /// never takes (nothing is called here).
    func post(_ events: [DownloadEvent], then: (@Sendable () -> Void)? = nil) -> Bool {
        state.withLock { state in
            for event in events { state.pending.append(Item(event: event, newest: state.newest, then: nil)) }
            if let then { state.pending.append(Item(event: nil, newest: state.newest, then: then)) }
            return state.startsDelivery()
        }
    }

    /// Delivers what is pending, in order, until nothing is. It takes what is pending at once,
    /// with the observers registered then: one added later has a token above every taken
    /// item's `newest`, so it would hear none of them anyway.
    func drain() {
        while true {
            let taken = state.withLock { state -> (items: [Item], order: [Int])? in
                guard !state.pending.isEmpty else {
                    state.delivering = false
                    return nil
                }
                defer { state.pending = [] }
                return (state.pending, state.order)
            }
            guard let (items, order) = taken else { return }
            for item in items {
                if let event = item.event {
                    // Each observer is looked up again right before its call: one removed meanwhile
                    // (by an earlier observer of this event, say) is not called.
                    for token in order {
                        guard token <= item.newest else { break } // `order` is increasing
                        if let observer = state.withLock({ $0.observers[token] }) { observer(event) }
                    }
                }
                item.then?()
            }
        }
    }
}
