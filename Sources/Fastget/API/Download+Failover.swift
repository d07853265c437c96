/// Failover from a first URL that cannot be reached: the download goes on from a mirror.
extension Download {
    /// `probe`, and when the URL's probe fails in a way a mirror may not (the server cannot be
    /// reached, refuses, or keeps failing after the retries), the mirrors given in turn: the
    /// first that answers serves the file as the URL would have, and is returned as `via`.
    /// The file keeps the URL's name and journal, so a rerun resumes whichever server answers
    /// it; the URL is probed first again then, like a mirror dropped for one run. Announced
    /// mirrors are not tried: only the URL's own answer announces them.
    func probeOrFailOver(
        _ requester: Requester, opening: Bool, tell: (String) -> Void
    ) throws(FastgetError) -> (resource: RemoteResource, opened: OpenedResponse?, via: ProbedMirror?) {
        let failure: FastgetError
        do {
            let found = try probe(requester, opening: opening)
            return (found.resource, found.opened, nil)
        } catch {
            failure = error
        }
        guard !mirrorURLs.isEmpty, Download.failoverCodes.contains(failure.code) else { throw failure }
        for mirror in mirrorURLs {
            if let stop = control.withLock({ $0.stop }) { throw FastgetError(.cancelled, stop.reason) }
            let name = mirror.withoutCredentials
            do {
                let prober = Prober(requester: requester, track: { [control] in control.withLock { $0.probing }?.track(0, $0) })
                let resource = try prober.probe(mirror)
                requester.events.take().forEach(hub.publish)
                hub.publish(.sizeKnown(resource.length))
                tell("\(failure.message); downloading from the mirror \(name) instead")
                return (resource, nil, ProbedMirror(given: mirror, url: resource.url, validator: Validator(resource)))
            } catch {
                requester.events.take().forEach(hub.publish)
                let message = HTTPURL.redactingQueries(in: FastgetError.from(error, url: mirror).message, keeping: name.description)
                tell("mirror \(name) cannot stand in for \(url.withoutCredentials): \(message)")
            }
        }
        throw failure
    }

    /// The failures of the URL that a mirror may not share: its server is down, unknown,
    /// unreachable or failing. Not an answer about the file (404, 401, a changed file), not
    /// a TLS failure (a certificate problem is the user's to see, never routed around), not
    /// a local one.
    static let failoverCodes: Set<FastgetError.Code> = [.unavailable, .hostNotFound, .temporary, .serverError]
}
