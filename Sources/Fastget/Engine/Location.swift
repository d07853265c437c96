/// Where a transfer's requests go: the probe's final URL, or a newer one after a redirect
/// target expired (signed URLs do, answering 403 or 410). Re-resolving the URL the user gave
/// happens once per expiry — not again until the new target has served a range — and its probe
/// runs outside the lock: a slow server holds up neither a stop nor the other workers (those
/// that meet the same expiry wait for that probe's answer, in steps a stop ends).
final class Location: Sendable {
    /// The URL as given, before redirects.
    let original: HTTPURL
    private let state: Locked<State>

    private struct State {
        var url: HTTPURL
        /// Whether the URL was re-resolved, and whether a range was served from it since.
        var refreshed = false
        var servedSinceRefresh = false
        /// A worker is re-resolving it now.
        var refreshing = false
    }

    /// What came of an expired target.
    enum Refresh: Equatable {
        /// Try again at `url` (re-resolved, by this worker or another).
        case retry
        /// Nothing better to try: the failure stands.
        case giveUp
        /// The URL names another file now (length or validator differ).
        case changed
    }

    /// How long a worker waits between looks at another worker's refresh.
    static let refreshPoll = 0.01

    init(original: HTTPURL, current: HTTPURL) {
        self.original = original
        state = Locked(State(url: current))
    }

    /// Where requests go now.
    var url: HTTPURL { state.withLock { $0.url } }

    /// Notes that `url` served a range (so it may be re-resolved again when it expires later).
    func served(_ url: HTTPURL) {
        state.withLock { if $0.url == url && $0.refreshed { $0.servedSinceRefresh = true } }
    }

    /// `failed` answered 403 or 410: re-resolves `original` with `probe` (outside the lock) and,
    /// if `sameFile` accepts the answer, sends later requests to its URL.
    func refreshExpired(
        _ failed: HTTPURL, control: TransferControl, probe: () -> RemoteResource?,
        sameFile: (RemoteResource) -> Bool
    ) -> Refresh {
        guard failed != original.withoutCredentials, failed != original else { return .giveUp }
        enum Step { case retry, giveUp, wait, refresh }
        while true {
            let step = state.withLock { state -> Step in
                if state.url != failed { return .retry } // another worker re-resolved it already
                if state.refreshing { return .wait }
                guard !state.refreshed || state.servedSinceRefresh else { return .giveUp }
                state.refreshed = true
                state.servedSinceRefresh = false
                state.refreshing = true
                return .refresh
            }
            switch step {
            case .retry: return .retry
            case .giveUp: return .giveUp
            case .wait:
                control.sleep(seconds: Location.refreshPoll)
                if control.isStopped { return .giveUp }
                continue
            case .refresh:
                break
            }
            let fresh = probe()
            let changed = fresh.map { !sameFile($0) } ?? false
            let usable = state.withLock { state -> Bool in
                state.refreshing = false
                guard let fresh, fresh.url != failed, !changed else { return false }
                state.url = fresh.url
                // Ranges the old target served while this probe ran say nothing of the new one.
                state.servedSinceRefresh = false
                return true
            }
            return changed ? .changed : usable ? .retry : .giveUp
        }
    }
}
