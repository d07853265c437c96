import Synchronization

/// What the workers of one download share: where to fetch, where to write, and how to stop.
/// Workers touch only atomics here on the data path; the locks guard rare events (failure,
/// connection hand-over for cancellation).
final class Transfer: Sendable {
    let requester: Requester
    let resource: RemoteResource
    let output: any WriteTarget
    let options: DownloadOptions
    /// Sent as `If-Range` with every range request: a changed file answers 200, never a splice.
    let validator: Validator?
    /// The whole download's rate limit, when there is one.
    let limiter: RateLimiter?
    /// Events from the workers, for the coordinator to publish (observers never run on a worker).
    func post(_ event: DownloadEvent) { requester.events.post(event) }

    func takeEvents() -> [DownloadEvent] { requester.events.take() }

    /// Wakes the coordinator early (a worker ended, or the download was stopped).
    let wake = WakeSignal()

    private let stopped = Atomic<Bool>(false)
    private let firstFailure = Locked<FastgetError?>(nil)
    private let activeConnections = Locked<[Int: any Interruptible]>([:])
    let runningWorkers = Atomic<Int>(0)
    let retries = Atomic<Int>(0)
    /// For a single stream: the number of bytes the body turned out to have.
    let streamedLength = Atomic<Int64>(-1)

    private let changed = Atomic<Bool>(false)
    /// Whether the notice about an unasked-for Content-Encoding went out (once is enough).
    let encodingNoticed = Atomic<Bool>(false)
    private let stopMessage = Locked<String>("download cancelled")

    /// The URL as given, before redirects.
    let originalURL: HTTPURL
    /// Where requests go: the probe's final URL, or a newer one after a redirect target expired.
    private let location: Locked<Location>

    private struct Location {
        var url: HTTPURL
        /// Whether the URL was re-resolved, and whether a range was served from it since.
        var refreshed = false
        var servedSinceRefresh = false
        /// A worker is re-resolving it now.
        var refreshing = false
    }

    init(requester: Requester, originalURL: HTTPURL, resource: RemoteResource, output: any WriteTarget, options: DownloadOptions,
         validator: Validator?) {
        self.requester = requester
        limiter = options.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        self.originalURL = originalURL
        location = Locked(Location(url: resource.url))
        self.resource = resource
        self.output = output
        self.options = options
        self.validator = validator
    }

    /// Where requests go now.
    var url: HTTPURL { location.withLock { $0.url } }

    /// Notes that `url` served a range (so it may be re-resolved again when it expires later).
    func served(_ url: HTTPURL) {
        location.withLock { if $0.url == url && $0.refreshed { $0.servedSinceRefresh = true } }
    }

    /// A redirect target answered 403 or 410: signed URLs expire. Resolves the original URL
    /// again (once per expiry: not again until the new target has served a range) and, if it
    /// names the same file (length and validator), sends later requests to the new target.
    ///
    /// The probe runs outside the lock, its connections registered as worker `id`'s: a slow
    /// server holds up neither a stop nor the other workers (those that meet the same expiry
    /// wait for this probe's answer, in steps a stop ends).
    /// - Returns: whether to try again (at `url`).
    func refreshExpired(_ failed: HTTPURL, worker id: Int) -> Bool {
        guard failed != originalURL.withoutCredentials, failed != originalURL else { return false }
        enum Step { case retry, giveUp, wait, refresh }
        while true {
            let step = location.withLock { state -> Step in
                if state.url != failed { return .retry } // another worker re-resolved it already
                if state.refreshing { return .wait }
                guard !state.refreshed || state.servedSinceRefresh else { return .giveUp }
                state.refreshed = true
                state.servedSinceRefresh = false
                state.refreshing = true
                return .refresh
            }
            switch step {
            case .retry: return true
            case .giveUp: return false
            case .wait:
                pause(seconds: 0.01)
                if isStopped { return false }
                continue
            case .refresh:
                break
            }
            let fresh = try? Prober(requester: requester, track: { [self] in track(id, $0) }).probe(originalURL)
            let changed = fresh.map { $0.length != resource.length || (validator != nil && Validator($0) != validator) } ?? false
            let usable = location.withLock { state -> Bool in
                state.refreshing = false
                guard let fresh, fresh.url != failed, !changed else { return false }
                state.url = fresh.url
                // Ranges the old target served while this probe ran say nothing of the new one.
                state.servedSinceRefresh = false
                return true
            }
            if changed {
                failBecauseChanged(FastgetError(.protocolViolation, "the file changed on the server (re-resolving \(originalURL.withoutCredentials) after \(failed) expired)"))
            }
            return usable
        }
    }

    private let lostRanges = Atomic<Bool>(false)
    /// Seconds from sending a request to its response head, smoothed (microseconds).
    private let latencyMicroseconds = Atomic<Int64>(0)

    /// How long a request takes to be answered lately, in seconds (0 until one was).
    var latency: Double { Double(latencyMicroseconds.load(ordering: .relaxed)) / 1e6 }

    func recordLatency(_ seconds: Double) {
        let sample = Int64(seconds * 1e6)
        let previous = latencyMicroseconds.load(ordering: .relaxed)
        // Races between workers lose a sample at worst; the value is an estimate.
        latencyMicroseconds.store(previous == 0 ? sample : (previous * 3 + sample) / 4, ordering: .relaxed)
    }

    /// Whether the server stopped honouring byte ranges (a 200 to a range request).
    var rangesLost: Bool { lostRanges.load(ordering: .acquiring) }

    /// Records that ranges no longer work and stops the workers.
    func failBecauseRangesLost(_ error: FastgetError) {
        lostRanges.store(true, ordering: .releasing)
        fail(error)
    }

    /// Whether a worker found that the file on the server is no longer the one being fetched.
    var resourceChanged: Bool { changed.load(ordering: .acquiring) }

    /// Records that the file changed on the server and stops the workers.
    func failBecauseChanged(_ error: FastgetError) {
        changed.store(true, ordering: .releasing)
        fail(error)
    }

    /// Why `stop()` was called ("download paused", "download cancelled").
    var stopReason: String { stopMessage.withLock { $0 } }

    func stop(reason: String) {
        stopMessage.withLock { $0 = reason }
        stop()
    }

    var isStopped: Bool { stopped.load(ordering: .acquiring) }
    var failure: FastgetError? { firstFailure.withLock { $0 } }

    /// Records the first failure and stops every worker.
    func fail(_ error: FastgetError) {
        firstFailure.withLock { if $0 == nil { $0 = error } }
        stop()
    }

    /// Stops the workers: sets the flag they check between reads and shuts down the connections
    /// they may be blocked on.
    func stop() {
        stopped.store(true, ordering: .releasing)
        activeConnections.withLock { connections in
            for connection in connections.values { connection.shutdown() }
        }
        wake.signal()
    }

    /// Registers the connection worker `id` is using (nil when it has none), so `stop()` can
    /// unblock it. A connection registered after a stop is shut down at once.
    func track(_ id: Int, _ connection: (any Interruptible)?) {
        activeConnections.withLock { connections in
            connections[id] = connection
            if let connection, isStopped { connection.shutdown() }
        }
    }

    func workerFinished() {
        runningWorkers.subtract(1, ordering: .releasing)
        wake.signal()
    }

    /// Sleeps up to `seconds`, returning early when the download is stopped.
    func pause(seconds: Double) {
        let deadline = MonotonicClock.seconds() + seconds
        while !isStopped {
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { return }
            MonotonicClock.sleep(seconds: min(left, Transfer.pauseStep))
        }
    }

    /// The longest `pause` sleeps before it looks again whether the download was stopped.
    static let pauseStep = 0.02
}
