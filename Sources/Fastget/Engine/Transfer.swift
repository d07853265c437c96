import Synchronization

/// What the workers of one download share: where to fetch (`location`), where to write
/// (`output`), how to stop (`control`), and the figures they keep together. Workers touch only
/// atomics here on the data path.
final class Transfer: Sendable {
    let requester: Requester
    let resource: RemoteResource
    let output: any WriteTarget
    let options: DownloadOptions
    /// Sent as `If-Range` with every range request: a changed file answers 200, never a splice.
    let validator: Validator?
    /// The whole download's rate limit, when there is one.
    let limiter: RateLimiter?
    /// Stop, failure, the connections in use, wake-ups.
    let control = TransferControl()
    /// Where requests go.
    let location: Location
    /// The servers of the file: the URL given (index 0), then its mirrors.
    let sources: [Source]
    /// Held while a source is dropped (see `drop(_:because:)`); counts the drops. (Not a
    /// `Locked<Void>`: ThreadSanitizer takes accesses to an empty value for races.)
    let droppingSources = Locked<Int>(0)
    /// How long requests take to be answered lately.
    let latency = LatencyEstimate()

    let runningWorkers = Atomic<Int>(0)
    /// The most workers that ran at once (an automatic count varies).
    let mostWorkers = Atomic<Int>(0)
    let retries = Atomic<Int>(0)
    /// For a single stream: the number of bytes the body turned out to have.
    let streamedLength = Atomic<Int64>(-1)
    /// Whether the notice about an unasked-for Content-Encoding went out (once is enough).
    let encodingNoticed = Atomic<Bool>(false)
    /// The probe's own GET, answered and not yet read: the first worker to fetch from byte 0
    /// takes it instead of sending a request.
    private let opened: Locked<OpenedResponse?>

    init(
        requester: Requester, originalURL: HTTPURL, resource: RemoteResource, output: any WriteTarget, options: DownloadOptions,
        validator: Validator?, opened: OpenedResponse? = nil, mirrors: [ProbedMirror] = []
    ) {
        self.opened = Locked(opened)
        self.requester = requester
        limiter = options.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        location = Location(original: originalURL, current: resource.url)
        self.resource = resource
        self.output = output
        self.options = options
        self.validator = validator
        sources =
            [Source(index: 0, given: originalURL, mirrorURL: nil, validator: validator)]
            + mirrors.enumerated().map {
                Source(
                    index: $0.offset + 1, given: $0.element.given, mirrorURL: $0.element.url, validator: $0.element.validator,
                    publicOnly: $0.element.publicOnly)
            }
    }

    /// Where requests go now.
    var url: HTTPURL { location.url }

    /// The probe's answer, for a ranged (206 from byte 0) or a whole-file (200) read; nil when
    /// it is gone or of the other kind.
    func takeOpened(ranged: Bool) -> OpenedResponse? {
        opened.withLock { opened in
            guard let response = opened, response.ranged == ranged else { return nil }
            opened = nil
            return response
        }
    }

    /// Closes the probe's answer if no worker took it.
    func closeOpened() {
        opened.withLock { $0.take() }?.connection.shutdown()
    }

    /// Events from the workers, for the coordinator to publish (observers never run on a worker).
    func post(_ event: DownloadEvent) { requester.events.post(event) }

    func takeEvents() -> [DownloadEvent] { requester.events.take() }

    /// A redirect target answered 403 or 410: asks `location` to re-resolve the original URL,
    /// the probe's connections registered as worker `id`'s; a URL that names another file now
    /// fails the transfer as changed.
    /// - Returns: whether to try again (at `url`).
    func refreshExpired(_ failed: HTTPURL, worker id: Int) -> Bool {
        let outcome = location.refreshExpired(
            failed, control: control,
            probe: { [self] in
                try? Prober(requester: requester, track: { [control] in control.connections.track(id, $0) }).probe(location.original)
            },
            sameFile: { [self] fresh in
                fresh.length == resource.length && (validator == nil || Validator.same(validator, Validator(fresh)))
            })
        if outcome == .changed {
            control.failBecauseChanged(
                FastgetError(
                    .protocolViolation,
                    "the file changed on the server (re-resolving \(location.original.withoutCredentials) after \(failed) expired)"))
        }
        return outcome == .retry
    }

    func workerFinished() {
        runningWorkers.subtract(1, ordering: .releasing)
        control.wake.signal()
    }
}
