/// Mirrors: which of the given and announced ones serve this run, probed all at once, and what
/// the journal keeps of them.
extension Download {
    /// The mirrors a segmented `start` fetches from, recorded in its journal before any of
    /// their bytes can be written; never `via`, the mirror standing in for the URL.
    func mirrors(
        for start: StartPoint, _ resource: RemoteResource, _ requester: Requester, standingIn via: ProbedMirror? = nil,
        tell: (String) -> Void
    ) -> [ProbedMirror] {
        guard start.segmented else {
            if mirrorURLs.contains(where: { $0.description != via?.given.description }) {
                tell(
                    "mirrors not used: \((via?.given ?? url).withoutCredentials) does not serve byte ranges, so the file comes from it in one stream")
            }
            return []
        }
        let expected = expectedChecksum(resource, recorded: start.recordedDigest)
        let chosen = usableMirrors(
            of: resource, requester, expected: expected, recorded: start.recordedMirrors, failed: start.failedMirrors,
            standingIn: via, tell: tell)
        start.checkpointer?.record(mirrors: chosen.records, digest: chosen.records.isEmpty ? nil : expected)
        return chosen.usable
    }

    /// The mirrors to fetch ranges from besides `resource`: `options.mirrors`, then those the
    /// server announced (unless `mirrorsFromHeaders` is off), each probed once, all at once (the
    /// slowest probe bounds the wait, not their sum; a stop ends them). A mirror whose probe
    /// fails, that has another length, that does not serve byte ranges or whose validator is not
    /// the one `recorded` gives it (its file changed since an earlier run wrote bytes it served)
    /// is left out with a notice naming it, and so is, unprobed, one whose bytes were in a file
    /// that failed its digest (`failed`: a rerun would only fail the same way). `records` is
    /// what the journal keeps from now on.
    func usableMirrors(
        of resource: RemoteResource, _ requester: Requester, expected: Checksum?, recorded: [Journal.Mirror],
        failed: [String] = [], standingIn via: ProbedMirror? = nil, tell: (String) -> Void
    ) -> (usable: [ProbedMirror], records: [Journal.Mirror]) {
        var seen: Set<String> = [url.withoutCredentials.description, resource.url.withoutCredentials.description]
        if let via { seen.insert(via.given.withoutCredentials.description) }
        // Announced mirrors only when a digest will prove their bytes (RFC 6249 §6: without
        // one, a lagging mirror of a file of the same size would pass on its length alone).
        let announced = options.mirrorsFromHeaders && expected != nil ? resource.announcedMirrors : []
        // The user's own mirrors go anywhere; a public server's announced ones only to public addresses.
        var candidates = (mirrorURLs.map { ($0, false) } + announced.map { ($0.url, $0.publicOnly) }).filter {
            seen.insert($0.0.withoutCredentials.description).inserted
        }.map { Candidate(url: $0.0, publicOnly: $0.1) }
        candidates.removeAll { candidate in
            let name = candidate.url.withoutCredentials.description
            guard failed.contains(where: { Download.sameMirror($0, name) }) else { return false }
            tell("mirror \(name) not used: the file it served part of failed its digest check in an earlier run")
            return true
        }
        // A file one connection takes whole never reaches a mirror.
        if options.segments == 1 || (resource.length ?? 0) <= Coordinator.inlineLimit { return ([], recorded) }
        // Without a digest every candidate is a given mirror (announced ones need one); the
        // mirror standing in for the URL is not among them, and gets no such notice.
        if !candidates.isEmpty && expected == nil {
            tell("no digest to check the mirrors' bytes against (--checksum, or the server's Repr-Digest): they are trusted by their length")
            candidates.removeAll { namesAnotherFile($0.url, tell: tell) }
        }
        guard !candidates.isEmpty, control.withLock({ $0.stop }) == nil else { return ([], recorded) }
        let results = probeAll(candidates, requester)
        var usable: [ProbedMirror] = []
        var records = recorded
        for (index, candidate) in candidates.enumerated() {
            let name = candidate.url.withoutCredentials.description
            let earlier = recorded.first { Download.sameMirror($0.url, name) }
            switch results[index] {
            case .failure(let error)?:
                tell("mirror \(name) not used: \(HTTPURL.redactingQueries(in: error.message, keeping: name))")
            case .success(let probed)? where probed.length != resource.length:
                tell("mirror \(name) not used: it has \(probed.length.map { "\($0) bytes" } ?? "no length"), not \(resource.length ?? 0)")
            case .success(let probed)? where !probed.acceptsRanges:
                tell("mirror \(name) not used: it does not serve byte ranges")
            case .success(let probed)?:
                if let reason = unusable(probed, earlier: earlier, recorded: records.count, name: name, expected: expected) {
                    tell("mirror \(name) not used: \(reason)")
                    continue
                }
                let validator = earlier?.validator.map { $0.filled(from: Validator(probed)) } ?? Validator(probed)
                usable.append(ProbedMirror(given: candidate.url, url: probed.url, validator: validator, publicOnly: candidate.publicOnly))
                if earlier == nil { records.append(Journal.Mirror(url: name, validator: Validator(probed))) }
            case nil:
                break
            }
        }
        return (usable, records)
    }

    /// Why a mirror that passed its probe cannot serve this run, by what the journal recorded
    /// of it (`earlier`): its file changed since it served bytes, or it has no validator to show
    /// that it did not and no digest will check; or the journal has no room to record it.
    private func unusable(
        _ probed: RemoteResource, earlier: Journal.Mirror?, recorded: Int, name: String, expected: Checksum?
    ) -> String? {
        let now = Validator(probed)
        guard let earlier else {
            if name.utf8.count > Journal.maximumStringBytes { return "its URL is too long to record" }
            return recorded >= Journal.maximumMirrors ? "the journal already records \(recorded) mirrors" : nil
        }
        if !Validator.same(earlier.validator, now) {
            return "its file changed since the last run (\(earlier.validator?.description ?? "no validator") → \(now?.description ?? "no validator"))"
        }
        if now?.headerValue == nil && expected == nil { return "it gives no ETag or Last-Modified, so a change since the last run could not be seen" }
        return nil
    }

    /// After a digest failure, the mirrors that may have served wrong bytes: those that served
    /// any in this run and, when the run resumed bytes, those the journal recorded (they may
    /// have served the resumed ones); after those an earlier failure left out already.
    func suspectMirrors(_ transfer: Transfer, _ start: StartPoint) -> [String] {
        var names = start.failedMirrors
        let served = transfer.sources.filter { $0.index > 0 && !$0.served.isEmpty }.map(\.name)
        let resumed = start.resumedBytes > 0 ? start.recordedMirrors.map(\.url) : []
        for name in served + resumed where !names.contains(where: { Download.sameMirror($0, name) }) { names.append(name) }
        return Array(names.suffix(Journal.maximumMirrors))
    }

    /// Whether two mirror URLs (as recorded, without credentials) name one mirror: the same
    /// but for the query, which a signed CDN link changes on every announcement. A mirror whose
    /// bytes failed stays out, and one the journal knows keeps its record, whatever it signs.
    static func sameMirror(_ one: String, _ other: String) -> Bool {
        one.prefix { $0 != "?" } == other.prefix { $0 != "?" }
    }

    /// The remedy after a digest failure that leaves `mirrors` out of the rerun; nil when none
    /// is new (the servers left are the ones whose bytes failed).
    func leftOutRemedy(_ mirrors: [String], _ resource: RemoteResource) -> FastgetError.Remedy? {
        guard !mirrors.isEmpty else { return nil }
        let announced = Set(resource.announcedMirrors.map(\.url.withoutCredentials.description))
        return .downloadAgainWithoutMirrors(mirrors, announced: mirrors.contains(where: announced.contains))
    }

    /// Whether `mirror` names another file than the download's URL (`fastget a.img b.img`,
    /// typed as wget takes it, means two files): without a digest its length alone would
    /// vouch for it, so it is left out, with a notice.
    private func namesAnotherFile(_ mirror: HTTPURL, tell: (String) -> Void) -> Bool {
        let (own, its) = (FileName.derived(from: url), FileName.derived(from: mirror))
        guard own != its else { return false }
        tell(
            "mirror \(mirror.withoutCredentials) not used: it names another file (\(its), not \(own)) and no digest can show they are the same; to download several files, list them with -i"
        )
        return true
    }

    /// How long the mirrors' probes may hold the start (or `connectionTimeout`, if shorter): a
    /// mirror that has not answered by then is left out.
    static let mirrorProbeDeadline = 5.0

    /// Probes every candidate at once, each on its own thread and its own stop slot, for at
    /// most `mirrorProbeDeadline` seconds (the connections of those still probing are then shut
    /// down); the results by index.
    private func probeAll(_ candidates: [Candidate], _ requester: Requester) -> [Int: Result<RemoteResource, FastgetError>] {
        let probing = control.withLock { $0.probing }
        let phase = ConnectionRegistry()
        let outcomes = Locked<[Int: Result<RemoteResource, FastgetError>]>([:])
        let finished = WakeSignal()
        var threads: [PosixThread] = []
        for (index, candidate) in candidates.enumerated() {
            let probe: @Sendable () -> Void = {
                let outcome: Result<RemoteResource, FastgetError>
                do {
                    // Each probe registers its connection under its own slot, so a stop reaches all.
                    let track: ((any Interruptible)?) -> Void = {
                        probing?.track(index + 1, $0)
                        phase.track(index, $0)
                    }
                    let prober = Prober(requester: requester, track: track, publicOnly: candidate.publicOnly)
                    outcome = .success(try prober.probe(candidate.url))
                } catch {
                    outcome = .failure(FastgetError.from(error, url: candidate.url))
                }
                outcomes.withLock { $0[index] = outcome }
                finished.signal()
            }
            if let thread = try? PosixThread(probe) { threads.append(thread) } else { probe() }
        }
        let limit = min(options.connectSeconds, Download.mirrorProbeDeadline)
        let deadline = MonotonicClock.seconds() + limit
        while outcomes.withLock({ $0.count }) < candidates.count, MonotonicClock.seconds() < deadline {
            finished.wait(seconds: deadline - MonotonicClock.seconds())
        }
        let late = Set(candidates.indices).subtracting(outcomes.withLock { $0.keys })
        phase.stop()
        threads.forEach { $0.join() }
        requester.events.take().forEach(hub.publish)
        var results = outcomes.withLock { $0 }
        for index in late {
            results[index] = .failure(FastgetError(.temporary, "no answer within \(limit) s"))
        }
        return results
    }

    /// A mirror to probe, and whether it may be reached at public addresses only.
    struct Candidate: Sendable {
        let url: HTTPURL
        let publicOnly: Bool
    }
}
