/// `--dry-run`: the probe alone, and what a run would do with its answer.
extension Download {
    /// Probes the URL (following redirects, retrying like a run) and says what a run would do:
    /// the file's identity, where it would be saved, the ranges it would fetch, and whether a
    /// journal there would be resumed. Writes nothing, takes no lock, sends no ranged GET but
    /// the probe's own `bytes=0-0` when `HEAD` is refused.
    public func dryRun() throws(FastgetError) -> DownloadPlan {
        let session = self.session ?? Session.standard()
        defer { if self.session == nil { session.closeIdleConnections() } }
        let (connector, pool) = session.route(for: options, proxies: proxies)
        // A given name too long for its sidecars is refused before the probe, as a run does.
        if !writesAsStream { try SidecarFiles(destination).checkNameLength() }
        let resource = try probe(Requester(connector: connector, pool: pool, options: options, url: url))
        var destination = self.destination
        if !destinationGiven, let name = resource.contentDisposition.flatMap(FileName.fromContentDisposition) {
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
            length: resource.length ?? 0, validator: Validator(resource), segments: [])
        let destinationExists = FileSystem.exists(destination)
        if files.partIsForeign(url: header.url) && !options.overwrite && (!options.continuePartial || destinationExists) {
            throw files.foreignPartRefusal(destinationExists: destinationExists)
        }
        let (state, journal) = StartPoint.journalState(
            at: files.journal, partPath: files.part, header: header, continuing: options.continuePartial)
        var ranges: [ByteRange]
        var continuation: DownloadPlan.Continuation?
        if journal == nil, options.continuePartial, !options.overwrite, destinationExists, let length = resource.length,
            let foreign = try ForeignState.beside(destination, length: length)
        {
            // What the run would continue from, read and refused the same way.
            let (entries, done) = try StartPoint.entries(continuing: destination, from: foreign, length: length, options: options)
            ranges = entries.filter { $0.written < $0.end }.map { ByteRange(start: $0.written, end: $0.end) }
            continuation = DownloadPlan.Continuation(tool: foreign.tool.rawValue, stateFile: foreign.path, bytesDone: done)
        } else if let journal, resource.isSegmentable {
            let records =
                options.segments.map {
                    SegmentPlan.resplit(journal.segments, segments: $0, minimumSize: options.minimumSegmentSize)
                } ?? journal.segments
            ranges = records.filter { $0.written < $0.end }.map { ByteRange(start: $0.written, end: $0.end) }
        } else if resource.isSegmentable, let length = resource.length {
            ranges = SegmentPlan.ranges(length: length, options: options)
        } else {
            ranges = resource.length.map { [ByteRange(start: 0, end: $0)] } ?? []
        }
        return DownloadPlan(
            resource: resource, destination: destination, destinationExists: destinationExists, ranges: ranges,
            journal: state, continuation: continuation)
    }
}
