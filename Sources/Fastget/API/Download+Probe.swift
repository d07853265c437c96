/// The probe of a run, retried like a range request and ended by a stop.
extension Download {
    /// Probes the URL, tells the observers its requests and the size, and honours a stop asked
    /// for meanwhile.
    /// A probe that fails for a reason that may pass (503 with `Retry-After`, a timeout, a
    /// dropped connection) is retried like a range request: up to `options.retries` times,
    /// after the server's `Retry-After` or the same back-off.
    func probe(_ requester: Requester) throws(FastgetError) -> RemoteResource {
        try probe(requester, opening: false).resource
    }

    /// `probe`, or with `opening` the probe's GET whose answer also carries the file (see
    /// `Prober.open`), falling back to the HEAD probe for an answer it cannot use.
    func probe(_ requester: Requester, opening: Bool) throws(FastgetError) -> (resource: RemoteResource, opened: OpenedResponse?) {
        var failures = 0
        while true {
            let found: (RemoteResource, OpenedResponse?)
            do {
                let prober = Prober(requester: requester, track: { [control] in control.withLock { $0.probing }?.track(0, $0) })
                if opening, let answer = try prober.open(url) {
                    found = answer
                } else {
                    found = (try prober.probe(url), nil)
                }
            } catch {
                requester.events.take().forEach(hub.publish)
                let failure = FastgetError.from(error, url: url).advised(requester.credentialsAdvice(for: error))
                if let stop = control.withLock({ $0.stop }) { throw FastgetError(.cancelled, stop.reason) }
                guard failure.isRetryable, failures < options.retries else { throw failure }
                failures += 1
                hub.publish(.retry(attempt: failures, error: failure))
                if let stop = waitForStop(seconds: failure.retryDelay(attempt: failures)) {
                    throw FastgetError(.cancelled, stop.reason)
                }
                continue
            }
            requester.events.take().forEach(hub.publish)
            hub.publish(.sizeKnown(found.0.length))
            if let stop = control.withLock({ $0.stop }) {
                found.1?.connection.shutdown()
                throw FastgetError(.cancelled, stop.reason)
            }
            return found
        }
    }

    /// Sleeps up to `seconds`; returns early with the stop asked for meanwhile, if any.
    func waitForStop(seconds: Double) -> StopRequest? {
        let deadline = MonotonicClock.seconds() + seconds
        while true {
            if let stop = control.withLock({ $0.stop }) { return stop }
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 { return nil }
            stopped.wait(seconds: left)
        }
    }
}
