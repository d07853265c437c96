/// One run of a download on the coordinator thread: probe, start point, transfer, and the
/// final rename (or, with `outputDescriptor`, the bytes written out in order). "Single stream"
/// means one GET for the whole file, for a server without ranges; it applies to both.
extension Download {
    /// How many times a download starts over because the file changed on the server.
    static let maximumRestarts = 2

    func perform(progress: (DownloadProgress) -> Void, notice: (String) -> Void) throws(FastgetError) -> DownloadReport {
        let started = MonotonicClock.seconds()
        // A download without a session of its own closes its idle connections when it ends.
        let session = self.session ?? Session.standard()
        defer { if self.session == nil { session.closeIdleConnections() } }
        let (connector, pool) = session.route(for: options, proxies: proxies)
        let requester = Requester(connector: connector, pool: pool, options: options, url: url)
        let probing = ConnectionRegistry()
        control.withLock { control in
            control.probing = probing
            if control.stop != nil { probing.stop() } // asked for before there was a probe to stop
        }
        defer { control.withLock { $0.probing = nil } }
        // The context holds the closures for this call only (it is handed down, never kept).
        let result = withoutActuallyEscaping(progress) { progress in
            withoutActuallyEscaping(notice) { notice in
                Result { () throws(FastgetError) -> DownloadReport in
                    try perform(
                        RunContext(
                            session: session, requester: requester, started: started, progress: progress, notice: notice, hub: hub))
                }
            }
        }
        return try result.get()
    }

    /// The run's steps: a stream, an unchanged file, or probe, start point, transfer and rename
    /// (again from the probe when the file changed on the server, at most `maximumRestarts`).
    private func perform(_ run: RunContext) throws(FastgetError) -> DownloadReport {
        let requester = run.requester
        try prepareDirectory()
        if let report = try writeAsStream(run) { return report }
        if let unchanged = try unchangedSince(run) { return unchanged }
        var restarts = 0
        var singleStream = false
        var ownership: FileLock?
        var finishingPath: String?
        defer {
            ownership?.release()
            if let finishingPath { Download.finishing.remove(finishingPath) }
        }
        var look = try earlyLook(&ownership)
        while true {
            advance(to: .probing)
            // The probe's answer, unread, until a transfer takes it: closed on every other way out.
            // Held only here (no other binding), so that the connection's descriptor closes as
            // soon as the worker that took it lets go, not when the download ends.
            let resource: RemoteResource
            var unread: OpenedResponse?
            let via: ProbedMirror?
            let identity: RemoteResource
            (resource, unread, via, identity) = try probeOrFailOver(
                requester, opening: restarts == 0 && !singleStream && mayOpen(look?.files), tell: run.tell)
            defer { unread?.connection.shutdown() }
            let destination = try ownDestination(for: identity, ownership: &ownership)
            // The early look serves the first pass at the name it was taken for, no other; its
            // `.part` and journal are looked at again, since another program may have made one
            // while the probe was out (a foreign `.part` must be refused, not replaced).
            let seen = look.flatMap { $0.at == destination ? SidecarFiles(destination).relookingSidecars($0.files) : nil }
            look = nil
            guard
                let start = try StartPoint.prepare(
                    destination: destination, url: url, resource: identity,
                    options: options, singleStream: singleStream, look: seen, started: run.started, notice: run.tell, stop: stopAsked)
            else {
                return try alreadyComplete(destination, resource, run)
            }
            if restarts == 0 { tellWhenOneConnection(resource, run) }
            let mirrors = mirrors(for: start, resource, requester, standingIn: via, tell: run.tell)
            let transfer = makeTransfer(requester, resource, start, taking: &unread, mirrors: mirrors, via: via)
            defer { transfer.closeOpened() }
            begin(
                transfer, segments: start.table.snapshot().map { ByteRange(start: $0.start, end: $0.end) },
                resumedBytes: start.resumedBytes)
            defer { control.withLock { $0.transfer = nil } }

            let coordinator = coordinator(for: transfer, start, run)
            do {
                try drive(coordinator, run)
            } catch {
                try startOver(after: error, transfer, start, restarts: &restarts, singleStream: &singleStream, tell: run.tell)
                continue
            }
            // Its connections are back in the pool: a queue may start the next file while this
            // one checks, syncs and renames it (on a disk, the sync is most of a small file's
            // time). Another download of this name waits for it meanwhile (`own`).
            if let hook = control.withLock({ $0.finishing }), let held = ownership?.path {
                Download.finishing.add(held)
                finishingPath = held
                hook(self)
            }
            let length = try complete(start, transfer: transfer, buffers: coordinator.buffers, tell: run.tell)
            var done = run.report(
                path: destination, bytes: length, workers: transfer.mostWorkers.load(ordering: .relaxed),
                table: start.table, transfer: transfer, resumedBytes: start.resumedBytes,
                resource: resource, earlier: start.earlierSeconds)
            done.verifiedDigest = expectedChecksum(resource, recorded: start.recordedDigest) // finish checked it
            done.plannedConnections = coordinator.plan.connections
            return done
        }
    }

    /// After a failed pass: returns when the download starts over (the file changed, or the
    /// server stopped honouring ranges, at most `maximumRestarts` times), else throws `error`.
    private func startOver(
        after error: FastgetError, _ transfer: Transfer, _ start: StartPoint, restarts: inout Int, singleStream: inout Bool,
        tell: (String) -> Void
    ) throws(FastgetError) {
        guard (transfer.control.resourceChanged || transfer.control.rangesLost) && restarts < Download.maximumRestarts else {
            // One stream from a server without ranges cannot resume: its bytes would mislead.
            if start.checkpointer == nil { try? FileSystem.remove(start.output.partPath) }
            throw error
        }
        restarts += 1
        if transfer.control.rangesLost {
            // The old bytes came from ranges the server still honoured; they are right, but a
            // stream from zero cannot skip them, so they go.
            singleStream = true
            tell("\(error.message); downloading in one stream from the start")
        } else {
            tell("\(error.message); starting over")
        }
        start.checkpointer?.remove()
        try? FileSystem.remove(start.output.partPath)
    }

    /// The report for a file already complete at `destination` (`-c` on a file of the server's
    /// length, or a run that stopped after its rename): with a digest to meet, the file is
    /// checked first, so that a file of the right length and other bytes is not called done.
    private func alreadyComplete(_ destination: String, _ resource: RemoteResource, _ run: RunContext) throws(FastgetError) -> DownloadReport {
        let length = resource.length ?? 0
        var done = run.report(path: destination, bytes: length, workers: 0, resumedBytes: length, resource: resource)
        if let checksum = expectedChecksum(resource) {
            let actual: String
            do throws(FastgetError) {
                actual = try OutputFile.digest(checksum.algorithm, ofFile: destination, stop: stopAsked)
            } catch  where error.code == .cancelled {
                throw error.withRemedy(.checkAgain(path: destination))
            }
            guard actual == checksum.hex else {
                throw FastgetError(
                    .protocolViolation,
                    "\(destination) has the server's length, but its \(checksum.algorithm.rawValue) is \(actual), not \(checksum.hex)\(source(of: resource, checksum))",
                    remedy: .downloadAgain)
            }
            done.verifiedDigest = checksum
        }
        return done
    }

    /// The transfer from `start`, given the probe's unread answer when it can use it: only a
    /// fresh start reads the file from byte 0 (a resumed one has bytes there). With `via`, the
    /// mirror standing in for a URL that failed is the transfer's first server.
    private func makeTransfer(
        _ requester: Requester, _ resource: RemoteResource, _ start: StartPoint, taking unread: inout OpenedResponse?,
        mirrors: [ProbedMirror], via: ProbedMirror?
    ) -> Transfer {
        let handed = start.resumedBytes == 0 && unread?.ranged == start.segmented ? unread : nil
        if handed != nil { unread = nil }
        // A stand-in's ranges are guarded by its own version: the journal keeps the URL's.
        let transfer = Transfer(
            requester: requester, originalURL: via?.given ?? url, resource: resource, output: start.output, options: options,
            validator: start.segmented ? via?.validator ?? start.resumedValidator ?? Validator(resource) : nil, opened: handed,
            mirrors: mirrors)
        if let handed { transfer.latency.record(handed.latency) }
        return transfer
    }

    /// The pass over `start`, with the count its plan gives: fixed, or automatic, growing up to
    /// the session's per-host cap on each host of the file's servers (mirrors on one host share
    /// its cap), each connection past the first reserved from that host's allowance.
    private func coordinator(for transfer: Transfer, _ start: StartPoint, _ run: RunContext) -> Coordinator {
        let session = run.session
        var hosts: [String] = []
        for source in transfer.sources where !hosts.contains(transfer.url(of: source).host) {
            hosts.append(transfer.url(of: source).host)
        }
        let plan = ConnectionPlan.resolve(
            options,
            ConnectionPlan.Work(
                ranged: start.segmented, unfinished: start.table.unfinishedCount,
                remaining: start.table.segments.reduce(0) { $0 + max(0, $1.remaining) }, hosts: hosts.count),
            cap: session.maximumConnectionsPerHost)
        let allowances = hosts.map(session.allowance)
        return Coordinator(
            transfer: transfer, table: start.table, plan: plan, checkpointer: start.checkpointer, segmented: start.segmented,
            started: run.started, earlier: start.earlierSeconds, allowance: allowances.count == 1 ? allowances[0] : SpreadAllowance(allowances),
            threads: session.workerThreads)
    }

    /// Refuses a name too long for its sidecars before any request or directory (and again in
    /// `own` for a name the server gives; a device or FIFO streamed to has none), then makes
    /// the destination's directory when asked to.
    private func prepareDirectory() throws(FastgetError) {
        if !writesAsStream { try SidecarFiles(destination).checkNameLength() }
        guard options.createsDirectories else { return }
        do { try FileSystem.makeDirectories(FileSystem.directory(of: destination)) } catch {
            throw FastgetError.local(error, path: FileSystem.directory(of: destination), creating: true)
        }
    }

    /// Whether the probe may be the file's first GET (`Prober.open`): when nothing of an
    /// earlier run or another file is at the destination, whose handling needs the file's
    /// identity before any byte of it (a journal to resume, `-c`, a file to refuse), and the
    /// file is not written out in order. `look`: what is there, when already looked at.
    private func mayOpen(_ look: SidecarFiles.Look?) -> Bool {
        guard options.outputDescriptor == nil, !options.continuePartial else { return false }
        let files = SidecarFiles(destination)
        let look = look ?? files.look()
        // A `.part` of ours without a journal (one stream from a server without ranges, killed)
        // holds nothing to resume: the run starts from 0 as a first run does, so it may open.
        // Another program's is refused (or continued with -c) after a plain probe.
        return (options.replacesExistingFile || look.destination == nil)
            && (look.part == nil || !files.partIsForeign(url: url.withoutCredentials.description, look))
            && look.journal == nil
    }

    /// One notice when the connections asked for (`segments` above 1) cannot be had: the
    /// server serves no ranges, or gives no length to split.
    private func tellWhenOneConnection(_ resource: RemoteResource, _ run: RunContext) {
        guard let asked = options.segments, asked > 1, !resource.isSegmentable, resource.length != 0 else { return }
        run.tell(resource.acceptsRanges ? "server gives no length: one connection" : "server does not accept ranges: one connection")
    }

    /// After a transfer that ended without failure: checks that the whole file is in, verifies
    /// its checksum, renames it into place and drops the journal. Returns the file's length.
    private func complete(
        _ start: StartPoint, transfer: Transfer, buffers: BufferPool, tell: (String) -> Void
    ) throws(FastgetError) -> Int64 {
        let length = start.segmented ? transfer.resource.length! : transfer.streamedLength.load(ordering: .acquiring)
        guard length >= 0, !start.segmented || start.table.isComplete else {
            throw FastgetError(.protocolViolation, "the transfer ended before the file was complete")
        }
        let checksum = expectedChecksum(transfer.resource, recorded: start.recordedDigest)
        do throws(FastgetError) {
            if let checksum {
                try verify(checksum, start, length: length, buffers: buffers, transfer: transfer, tell: tell)
            }
            // The final fsync may take long and cannot be interrupted: not begun after a stop.
            if let reason = stopAsked() { throw FastgetError(.cancelled, reason) }
        } catch  where error.code == .cancelled {
            throw stoppedBeforeRename(error, start)
        }
        do {
            let mark = Journal(
                url: url.withoutCredentials.description, finalURL: transfer.resource.url.withoutCredentials.description,
                length: length, validator: Validator(transfer.resource), segments: [])
            let modified = options.remoteTime ? transfer.resource.lastModified.flatMap(HTTPDate.seconds) : nil
            // Bytes nothing checked (another program's, kept by `-c`) never make a file complete.
            let checked = !start.keptUnchecked || checksum != nil
            // A journal claiming every byte, durable before the rename: only such a journal
            // lets a rerun that finds it beside the final file call that file complete.
            if let checkpointer = start.checkpointer, checkpointer.hasJournal { _ = try? checkpointer.checkpoint(start.table) }
            try start.output.finish(
                length: length, replacing: start.replacesDestination, mark: checked ? mark : nil, modified: modified,
                origin: options.recordsOrigin ? mark.url : nil)
        } catch {
            // A file appeared at the final name: every byte is in and synced, so a last
            // checkpoint lets the rerun (once the way is clear) finish without fetching. Not
            // when the `.part` is another file now: the journal would vouch for its bytes.
            if error.code == .cannotCreateOutput && start.output.isAt(start.output.partPath) {
                _ = try? start.checkpointer?.checkpoint(start.table)
            }
            throw error
        }
        start.checkpointer?.remove()
        // `-c` continued this file from aria2's or axel's state file (in this run, or in the
        // one that moved it to `.part`, as its journal says): it describes a file that is now
        // complete, and goes only now, after the rename, so that a stop before leaves it for
        // that tool too. Only that very file: anything else at the name is someone's own.
        if let adopted = start.adoptedState { ForeignState.removeAdopted(adopted, beside: destination) }
        return length
    }

    /// Why the run must stop (`pause` or `cancel` asked for it), nil while it need not: what
    /// the long steps outside a transfer (preallocation, digest checks, the final sync) ask.
    func stopAsked() -> String? { control.withLock { $0.stop?.reason } }

    /// A stop after every byte is in, before the rename (during the digest check, or before the
    /// final sync): the journal, checkpointed now, claims the whole file, so the rerun only
    /// checks it again. A single stream, which cannot resume, leaves nothing.
    private func stoppedBeforeRename(_ error: FastgetError, _ start: StartPoint) -> FastgetError {
        guard let checkpointer = start.checkpointer else {
            try? FileSystem.remove(start.output.partPath)
            return error
        }
        if let bytes = try? checkpointer.checkpoint(start.table) { hub.publish(.checkpoint(bytesOnDisk: bytes)) }
        return error.withRemedy(.resume(journal: checkpointer.path))
    }

    /// Makes `transfer` the one `pause`/`cancel` stop (applying a stop asked for before it
    /// existed) and announces it. The caller clears `control.transfer` when it ends.
    func begin(_ transfer: Transfer, segments: [ByteRange], resumedBytes: Int64) {
        let stop = control.withLock { control -> StopRequest? in
            control.transfer = transfer
            return control.stop
        }
        if let stop { transfer.control.stop(reason: stop.reason) }
        advance(to: .downloading)
        hub.publish(.transferStarted(transfer.resource, segments: segments, resumedBytes: resumedBytes))
    }

    /// How far back `DownloadProgress.bytesPerSecond` looks.
    static let speedSeconds = 3.0

    /// Runs `coordinator`, handing its snapshots (with their speed) to the run's `progress`,
    /// the workers' notices to its `notice`, and everything to the observers.
    func drive(_ coordinator: Coordinator, _ run: RunContext) throws(FastgetError) {
        var window = SpeedWindow(seconds: Download.speedSeconds)
        try coordinator.run(
            progress: { [hub] snapshot in
                let snapshot = snapshot.measured(by: &window)
                run.progress(snapshot)
                hub.publish(.progress(snapshot))
            },
            events: { [hub] events in
                for event in events {
                    if case .notice(let text) = event { run.notice(text) }
                    hub.publish(event)
                }
            })
    }

    /// The digest the file must have: the one asked for, else the one the server announced,
    /// else the one a resumed journal `recorded` (mirrors served bytes under it).
    func expectedChecksum(_ resource: RemoteResource, recorded: Checksum? = nil) -> Checksum? {
        options.checksum ?? (options.checksAnnouncedDigest ? resource.announcedDigest : nil) ?? recorded
    }

    /// Where `checksum`, the expected digest, came from, for messages: " (the server's
    /// Repr-Digest)"; empty for `--checksum`.
    func source(of resource: RemoteResource, _ checksum: Checksum) -> String {
        if options.checksum != nil { return "" }
        if options.checksAnnouncedDigest, resource.announcedDigest == checksum {
            return " (the server's \(resource.announcedDigestField ?? "digest"))"
        }
        return " (the digest the journal kept from the run that used mirrors)"
    }

    /// Reads the finished `.part` file back and compares its digest. A mismatch keeps the file
    /// as `.part`: its bytes are all there, and wrong, so a rerun fetches the file anew. With
    /// several servers, a notice per server says which ranges it served, and the journal stays,
    /// claiming no byte, to keep the mirrors that served any out of the rerun (without mirrors
    /// it goes).
    func verify(
        _ checksum: Checksum, _ start: StartPoint, length: Int64, buffers: BufferPool, transfer: Transfer,
        tell: (String) -> Void
    ) throws(FastgetError) {
        let actual = try start.output.digest(checksum.algorithm, length: length, buffer: buffers.buffer(0), stop: stopAsked)
        guard actual == checksum.hex else {
            if transfer.sources.count > 1 {
                transfer.sources.forEach { tell(transfer.servedNote($0)) }
            }
            var remedy = FastgetError.Remedy.downloadAgainAfterDigest(part: start.output.partPath)
            let suspects = suspectMirrors(transfer, start)
            if let checkpointer = start.checkpointer, !suspects.isEmpty,
                (try? checkpointer.discard(start.table, failedMirrors: suspects)) != nil
            {
                let new = suspects.filter { name in !start.failedMirrors.contains { Download.sameMirror($0, name) } }
                // No mirror served a byte (those that failed before were left out): the server's
                // file, or the digest, is wrong, and the same command would fail the same way.
                remedy = leftOutRemedy(new, transfer.resource) ?? .fileOrDigestWrong(host: transfer.resource.url.authority)
            } else {
                start.checkpointer?.remove()
            }
            throw FastgetError(
                .protocolViolation,
                "\(checksum.algorithm.rawValue) of \(start.output.partPath) is \(actual), not \(checksum.hex)\(source(of: transfer.resource, checksum))",
                remedy: remedy)
        }
    }
}
