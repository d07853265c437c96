/// `--dry-run`: the probe alone, and what a run would do with its answer.
extension Download {
    /// Probes the URL (following redirects, retrying like a run) and says what a run would do:
    /// the file's identity, where it would be saved, the ranges it would fetch, and whether a
    /// journal there would be resumed. Writes nothing, takes no lock, sends no ranged GET but
    /// the probe's own `bytes=0-0` when `HEAD` is refused.
    ///
    /// It blocks the calling thread while it probes; async code calls `await dryRun()`.
    @available(*, noasync, message: "it blocks the thread while it probes; use 'await dryRun()'")
    public func dryRun() throws(FastgetError) -> DownloadPlan {
        let session = self.session ?? Session.standard()
        defer { if self.session == nil { session.closeIdleConnections() } }
        let (connector, pool) = session.route(for: options, proxies: proxies)
        // A given name too long for its sidecars is refused before the probe, as a run does.
        if !writesAsStream { try SidecarFiles(destination).checkNameLength() }
        // A URL that cannot be reached fails over as a run would; the stand-in's answer is the
        // plan's resource, and `identity` what the journal is judged by.
        let requester = Requester(connector: connector, pool: pool, options: options, url: url)
        let (resource, _, _, identity) = try probeOrFailOver(requester, opening: false) { [hub] in hub.publish(.notice($0)) }
        var destination = self.destination
        if !destinationGiven, let name = identity.contentDisposition.flatMap(FileName.fromContentDisposition) {
            destination = options.directory == "." ? name : options.directory + "/" + name
        }
        let files = SidecarFiles(destination)
        // What a run would refuse before any byte, refused here too (and a FIFO at the
        // journal's name is never opened).
        try files.checkNameLength()
        try files.refuseUnlessRegular()
        try files.refuseUnlessJournal()
        let header = Journal(
            url: url.withoutCredentials.description, finalURL: resource.url.withoutCredentials.description,
            length: resource.length ?? 0, validator: Validator(identity), segments: [])
        let destinationExists = FileSystem.exists(destination)
        if files.partIsForeign(url: header.url) && !options.replacesExistingFile && (!options.continuePartial || destinationExists) {
            throw files.foreignPartRefusal(destinationExists: destinationExists)
        }
        let (state, journal) = StartPoint.journalState(
            at: files.journal, partPath: files.part, header: header, continuing: options.continuePartial)
        var ranges: [ByteRange]
        var continuation: DownloadPlan.Continuation?
        if writesAsStream, resource.isSegmentable {
            ranges = Download.orderedRanges(resource) // no journal, no `-c`: the whole file, in units
        } else if !writesAsStream, journal == nil, options.continuePartial, !options.replacesExistingFile, destinationExists,
            let length = resource.length,
            let foreign = try ForeignState.beside(destination, length: length)
        {
            // What the run would continue from, read and refused the same way.
            let (entries, done) = try StartPoint.entries(continuing: destination, from: foreign, length: length, options: options)
            ranges = entries.filter { $0.written < $0.end }.map { ByteRange(start: $0.written, end: $0.end) }
            continuation = DownloadPlan.Continuation(tool: foreign.tool.rawValue, stateFile: foreign.path, bytesDone: done)
        } else if !writesAsStream, let journal, resource.isSegmentable {
            ranges = SegmentPlan.resumed(journal.segments, options: options).filter { $0.written < $0.end }.map {
                ByteRange(start: $0.written, end: $0.end)
            }
        } else if resource.isSegmentable, let length = resource.length {
            ranges = SegmentPlan.ranges(length: length, options: options)
        } else {
            ranges = resource.length.map { [ByteRange(start: 0, end: $0)] } ?? []
        }
        let plan = ConnectionPlan.resolve(
            options,
            ConnectionPlan.Work(
                ranged: resource.isSegmentable, inOrder: writesAsStream, unfinished: ranges.count,
                remaining: ranges.reduce(0) { $0 + $1.count }, hosts: hosts(serving: resource)),
            cap: session.maximumConnectionsPerHost)
        return DownloadPlan(
            resource: resource, destination: destination, destinationExists: destinationExists, ranges: ranges,
            journal: state, continuation: continuation, connections: plan.connections)
    }

    /// The hosts a run would fetch from if every mirror passed its probe: the server's, the
    /// given mirrors', and the announced ones' when a digest would check their bytes.
    private func hosts(serving resource: RemoteResource) -> Int {
        let announced = options.mirrorsFromHeaders && expectedChecksum(resource) != nil ? resource.announcedMirrors.map(\.url) : []
        var hosts = [resource.url.host]
        for mirror in mirrorURLs + announced where !hosts.contains(mirror.host) { hosts.append(mirror.host) }
        return hosts.count
    }
}
