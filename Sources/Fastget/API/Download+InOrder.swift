/// `-o -` and embedders' `outputDescriptor`: the file written out in order, no journal.
extension Download {
    /// Units the file is fetched in when it is written out in order: small, so that the
    /// workers stay close to the head.
    static let orderedUnit: Int64 = 512 * 1024
    /// The most units a file is cut into (a larger file gets larger units).
    static let maximumOrderedUnits: Int64 = 1 << 16
    /// The reorder window holds this many units per worker (one being written, one ahead)…
    static let windowUnitsPerWorker = 2
    /// …and at least this many read buffers' worth.
    static let minimumWindowBuffers = 4

    /// The units a file written out in order is fetched in: `orderedUnit`s, at most
    /// `maximumOrderedUnits` of them; the whole file (perhaps of unknown length) without ranges.
    static func orderedRanges(_ resource: RemoteResource) -> [ByteRange] {
        let length = resource.length ?? 0
        guard resource.isSegmentable else { return [ByteRange(start: 0, end: length)] }
        return SegmentPlan.tiles(
            length: length, segments: Int(min(Download.maximumOrderedUnits, (length + Download.orderedUnit - 1) / Download.orderedUnit)),
            minimumSize: Download.orderedUnit)
    }

    /// The file goes out to `descriptor` in order through a reorder window; no journal.
    /// `path` is what the report names ("-": standard output).
    func writeInOrder(to descriptor: Int32, path: String = "-", _ run: RunContext) throws(FastgetError) -> DownloadReport {
        let requester = run.requester
        let (resource, _, via, _) = try probeOrFailOver(requester, opening: false, tell: run.tell)
        var options = self.options
        options.stealsWork = false
        options.hedgesTails = false
        let segmented = resource.isSegmentable
        // Without ranges a retry would start again at byte 0, behind what already went out.
        if !segmented { options.retries = 0 }
        let length = resource.length ?? 0
        let ranges = Download.orderedRanges(resource)
        let plan = ConnectionPlan.resolve(
            options, ConnectionPlan.Work(ranged: segmented, inOrder: true, unfinished: ranges.count, remaining: length),
            cap: run.session.maximumConnectionsPerHost)
        let workers = plan.first
        let window = ReorderWindow(
            descriptor: descriptor,
            capacity: max(
                Download.minimumWindowBuffers * options.bufferSize,
                Download.windowUnitsPerWorker * workers * Int(Download.orderedUnit)),
            checksum: expectedChecksum(resource)?.algorithm)
        let mirrors =
            segmented
            ? usableMirrors(of: resource, requester, expected: expectedChecksum(resource), recorded: [], standingIn: via, tell: run.tell).usable
            : []
        let transfer = Transfer(
            requester: requester, originalURL: via?.given ?? url, resource: resource, output: window, options: options,
            validator: segmented ? Validator(resource) : nil, mirrors: mirrors)
        begin(transfer, segments: segmented ? [ByteRange(start: 0, end: length)] : ranges, resumedBytes: 0)
        defer { control.withLock { $0.transfer = nil } }
        let coordinator = Coordinator(
            transfer: transfer, table: SegmentTable(ranges: ranges), plan: plan,
            checkpointer: nil, segmented: segmented, started: run.started, window: window, threads: run.session.workerThreads)
        do {
            try drive(coordinator, run)
        } catch let error where transfer.control.resourceChanged || transfer.control.rangesLost {
            // Bytes already went out: a stream cannot start over.
            throw FastgetError(.protocolViolation, "\(error.message); the bytes already written to the stream cannot be taken back")
        }
        let emitted = window.bytesEmitted
        let expected = segmented ? length : transfer.streamedLength.load(ordering: .acquiring)
        guard emitted == expected else {
            throw FastgetError(.protocolViolation, "the stream ended after \(emitted) of \(expected) bytes")
        }
        if let checksum = expectedChecksum(resource) {
            // A digest this libcrypto will not compute (MD5 under FIPS) leaves the stream unchecked: say so.
            guard let actual = window.finishDigest() else {
                throw FastgetError(.localIO, "cannot compute \(checksum.algorithm.rawValue) here, so the stream was not checked")
            }
            guard actual == checksum.hex else {
                throw FastgetError(
                    .protocolViolation,
                    "\(checksum.algorithm.rawValue) of the stream is \(actual), not \(checksum.hex)\(source(of: resource, checksum))")
            }
        }
        var streamed = run.report(path: path, bytes: emitted, workers: workers, transfer: transfer, resumedBytes: 0, resource: resource)
        streamed.streamed = true
        streamed.plannedConnections = plan.connections
        streamed.verifiedDigest = expectedChecksum(resource) // checked above
        return streamed
    }
}
