/// Failover from a first URL that cannot be reached: the download goes on from a mirror.
extension Download {
    /// `probe`, and when the URL's probe fails in a way a mirror may not (the server cannot be
    /// reached, refuses, or keeps failing after the retries), the mirrors given in turn: the
    /// first that answers serves the file as the URL would have, and is returned as `via`.
    /// The file keeps the URL's name and journal, so a rerun resumes whichever server answers
    /// it; the URL is probed first again then, like a mirror dropped for one run. Announced
    /// mirrors are not tried: only the URL's own answer announces them.
    /// `identity` is what the destination's journal is judged by: the URL's answer, or, for a
    /// stand-in resuming that journal, the version the journal recorded (the stand-in passed
    /// the checks a mirror of that journal must pass, so its bytes are that version's).
    func probeOrFailOver(
        _ requester: Requester, opening: Bool, tell: (String) -> Void
    ) throws(FastgetError) -> (resource: RemoteResource, opened: OpenedResponse?, via: ProbedMirror?, identity: RemoteResource) {
        let failure: FastgetError
        do {
            let found = try probe(requester, opening: opening)
            return (found.resource, found.opened, nil, found.resource)
        } catch {
            failure = error
        }
        guard !mirrorURLs.isEmpty, Download.failoverCodes.contains(failure.code) else { throw failure }
        let journal = failoverJournal()
        for mirror in mirrorURLs {
            if let stop = control.withLock({ $0.stop }) { throw FastgetError(.cancelled, stop.reason) }
            let name = mirror.withoutCredentials
            if let journal, journal.failedMirrors.contains(where: { Download.sameMirror($0, name.description) }) {
                tell(
                    "mirror \(name) cannot stand in for \(url.withoutCredentials): the file it served part of failed its digest check in an earlier run"
                )
                continue
            }
            do {
                let prober = Prober(requester: requester, track: { [control] in control.withLock { $0.probing }?.track(0, $0) })
                let resource = try prober.probe(mirror)
                requester.events.take().forEach(hub.publish)
                let identity = standInIdentity(resource, journal: journal)
                if let journal, let reason = standInRefusal(resource, name: name.description, identity: identity, journal: journal) {
                    tell("mirror \(name) cannot stand in for \(url.withoutCredentials): \(reason)")
                    continue
                }
                hub.publish(.sizeKnown(resource.length))
                tell("\(failure.message); downloading from the mirror \(name) instead")
                return (resource, nil, ProbedMirror(given: mirror, url: resource.url, validator: Validator(resource)), identity)
            } catch {
                requester.events.take().forEach(hub.publish)
                // A stop ends the probe with an error of its own: the mirror is not to blame.
                if let stop = control.withLock({ $0.stop }) { throw FastgetError(.cancelled, stop.reason) }
                let message = HTTPURL.redactingQueries(in: FastgetError.from(error, url: mirror).message, keeping: name.description)
                tell("mirror \(name) cannot stand in for \(url.withoutCredentials): \(message)")
            }
        }
        if let stop = control.withLock({ $0.stop }) { throw FastgetError(.cancelled, stop.reason) }
        throw failure
    }

    /// The failures of the URL that a mirror may not share: its server is down, unknown,
    /// unreachable or failing. Not an answer about the file (404, 401, a changed file), not
    /// a TLS failure (a certificate problem is the user's to see, never routed around), not
    /// a local one.
    static let failoverCodes: Set<FastgetError.Code> = [.unavailable, .hostNotFound, .temporary, .serverError]

    /// The journal of this URL at the destination, which a stand-in must resume rather than
    /// replace: its progress, the digest that vouches for its mirrors' bytes and the mirrors
    /// that failed it are the URL's, and only the URL's answer may start it over.
    private func failoverJournal() -> Journal? {
        guard !writesAsStream, case .success(let journal)? = Checkpointer.load(SidecarFiles(destination).journal),
            journal.url == url.withoutCredentials.description
        else { return nil }
        return journal
    }

    /// `resource`, a stand-in's answer, as the start point and the name see it: with the
    /// version `journal` recorded (so that it is resumed and keeps the URL's validator), and
    /// without its `Content-Disposition` (the file keeps the URL's name, where its journal is).
    private func standInIdentity(_ resource: RemoteResource, journal: Journal?) -> RemoteResource {
        var identity = RemoteResource(
            url: resource.url, length: resource.length, acceptsRanges: resource.acceptsRanges,
            etag: journal.map { $0.validator?.etag } ?? resource.etag,
            lastModified: journal.map { $0.validator?.lastModified } ?? resource.lastModified, contentDisposition: nil)
        (identity.announcedDigest, identity.announcedDigestField) = (resource.announcedDigest, resource.announcedDigestField)
        identity.announcedMirrors = resource.announcedMirrors
        return identity
    }

    /// Why the mirror `name`, answering `resource`, cannot resume `journal` as a mirror of it
    /// could not serve it: another length, no ranges, another version than the one the journal
    /// recorded for it (or, unrecorded, for the URL), or a journal a run would not resume.
    private func standInRefusal(_ resource: RemoteResource, name: String, identity: RemoteResource, journal: Journal) -> String? {
        let path = SidecarFiles(destination).journal
        guard resource.length == journal.length else {
            return "it has \(resource.length.map { "\($0) bytes" } ?? "no length"), not \(journal.length) as \(path) records"
        }
        guard resource.isSegmentable else {
            return "it does not serve byte ranges, so the download \(path) records could not resume from it"
        }
        let now = Validator(resource)
        let record = journal.mirrors.first { Download.sameMirror($0.url, name) }
        let recorded = record.map(\.validator) ?? journal.validator
        guard Validator.same(recorded, now), now?.headerValue != nil || (record != nil && journal.digest != nil) else {
            return "its version (\(now?.description ?? "no validator")) is not the one \(path) records (\(recorded?.description ?? "no validator"))"
        }
        let header = Journal(
            url: journal.url, finalURL: resource.url.withoutCredentials.description, length: journal.length,
            validator: Validator(identity), segments: [])
        if let reason = StartPoint.refusal(
            of: journal, partPath: SidecarFiles(destination).part, header: header, continuing: options.continuePartial)
        {
            return "\(path) cannot be resumed (\(reason)), and only \(url.withoutCredentials) may start it over"
        }
        return nil
    }
}
