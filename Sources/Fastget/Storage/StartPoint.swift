/// Where a download starts: from nothing, from its journal, or from a file someone else left.
struct StartPoint {
    let output: OutputFile
    let table: SegmentTable
    /// Writes the journal; nil for a single stream, which cannot resume.
    let checkpointer: Checkpointer?
    let segmented: Bool
    /// Bytes already on disk when the transfer starts.
    let resumedBytes: Int64
    /// Whether the final rename may replace a file at the destination (`--overwrite`, or `-c`
    /// on a file larger than the server's). Otherwise a file that appeared there meanwhile stays
    /// and the download keeps its `.part`.
    let replacesDestination: Bool
    /// The mirrors the resumed journal recorded, each with the validator it had then.
    var recordedMirrors: [Journal.Mirror] = []
    /// The digest the resumed journal recorded for its mirrors' bytes.
    var recordedDigest: Checksum?
    /// The mirrors whose bytes failed that digest in an earlier run: not used again.
    var failedMirrors: [String] = []
    /// The resumed journal's validator, with what the probe adds filled in.
    var resumedValidator: Validator?
    /// Whether the file starts with bytes no request vouches for (`-c`, in this run or the one
    /// that wrote the resumed journal): without a digest to check them, the finished file gets
    /// no completion mark.
    var keptUnchecked = false
    /// The other tool's state file `-c` continued from, removed after the final rename.
    var adoptedState: Journal.AdoptedState?
    /// The time the download ran before this run, from the resumed journal.
    var earlierSeconds: Double = 0

    /// Decides how to start and prepares the `.part` file, removing anything that must not be
    /// trusted. Returns nil when the file at `destination` is already complete (`-c`).
    /// `singleStream` forces one plain GET (the server stopped honouring ranges). `look`: what
    /// is at the destination's paths, looked at under the lock already (before the probe).
    static func prepare(
        destination: String, url: HTTPURL, resource: RemoteResource, options: DownloadOptions,
        singleStream: Bool = false, look: SidecarFiles.Look? = nil, started: Double = MonotonicClock.seconds(),
        notice: (String) -> Void, stop: () -> String? = { nil }
    ) throws(FastgetError) -> StartPoint? {
        let files = SidecarFiles(destination)
        // Each path looked at once, under the lock; the rest decides on what this saw.
        let look = look ?? files.look()
        try refuseUnusable(destination, look.destination)
        try files.refuseUnlessRegular(look)
        try files.refuseUnlessJournal(look)
        let (partPath, journalPath) = (files.part, files.journal)
        let header = Journal(
            url: url.withoutCredentials.description, finalURL: resource.url.withoutCredentials.description,
            length: resource.length ?? 0, validator: Validator(resource), segments: [])
        let finalExists = look.destination != nil
        if finalExists && !options.replacesExistingFile
            && (CompletionMark.marks(destination, as: header)
                || finishedEarlier(destination, journalPath: journalPath, partPath: partPath, header: header))
        {
            // Completed by an earlier run: marked so and not written since (the rerun of a
            // batch), or stopped after the final rename but before the journal was removed.
            if !FileSystem.exists(partPath) { try? FileSystem.remove(journalPath) }
            notice("\(destination) is already complete")
            return nil
        }
        if finalExists && !options.replacesExistingFile && !options.continuePartial {
            try leaveExisting(destination, resource: resource, options: options, notice: notice)
            return nil
        }
        let segmented = resource.isSegmentable && !singleStream

        if segmented, look.journal != nil,
            let journal = usableJournal(
                at: journalPath, partPath: partPath, header: header,
                continuing: options.continuePartial, notice: notice)
        {
            return try resuming(
                journal, header: header, destination: destination, resource: resource, options: options, started: started, stop: stop)
        }
        // Another program's partial file is left alone unless replaced, or continued by `-c`
        // when nothing is at NAME: then its bytes are the prefix, as NAME's are otherwise.
        let partIsForeign = files.partIsForeign(url: header.url, look)
        let foreignPart = partIsForeign && !options.replacesExistingFile
        if foreignPart && (!options.continuePartial || finalExists) {
            throw files.foreignPartRefusal(destinationExists: finalExists)
        }
        if options.continuePartial && !options.replacesExistingFile && (finalExists || foreignPart) {
            return try continuing(
                destination: destination, from: foreignPart ? partPath : destination, resource: resource, header: header,
                options: options, started: started, notice: notice, stop: stop)
        }
        // A fresh start: whatever journal is there describes bytes that are about to go.
        let partSize = look.part?.size ?? 0
        if !segmented && !singleStream && !partIsForeign, partSize > 0 {
            // A stream from a server without ranges (or of unknown length) cannot skip what a
            // stopped run left; say so rather than start over silently. Another program's part
            // replaced by --overwrite was never to be resumed.
            let why = resource.acceptsRanges ? "the server gives no length" : "the server does not accept ranges"
            notice("\(partPath) cannot be resumed (\(why)); starting from 0")
        }
        try checkSpace(for: destination, needed: resource.length ?? 0, freed: partSize)
        // A journal that would not go is still there: the checkpointer must know it.
        let journalLeft = look.journal != nil && (try? FileSystem.remove(journalPath)) == nil
        let output = try OutputFile(finalPath: destination, length: resource.length, url: header.url, stop: stop)
        guard segmented, let length = resource.length else {
            return StartPoint(
                output: output, table: SegmentTable(ranges: [ByteRange(start: 0, end: resource.length ?? 0)]),
                checkpointer: nil, segmented: false, resumedBytes: 0, replacesDestination: options.replacesExistingFile)
        }
        let ranges = SegmentPlan.ranges(length: length, options: options)
        return try fresh(
            output, table: SegmentTable(ranges: ranges), journalPath: journalPath, header: header,
            replacesDestination: options.replacesExistingFile, journalLeft: journalLeft, started: started)
    }

    /// Refuses a destination (as `look` saw it) that is a directory or, through a link too,
    /// anything but a regular file. A device or FIFO given as the output is streamed to before
    /// this point; one that appears under a name the server gave is never renamed over or
    /// moved aside.
    private static func refuseUnusable(_ destination: String, _ status: FileSystem.Status?) throws(FastgetError) {
        guard let status, status.kind != .regular else { return }
        // A link is judged by what it names (a link to a regular file is used as before).
        let kind = status.kind == .symbolicLink ? FileSystem.kind(destination) : status.kind
        if kind == .directory {
            throw FastgetError(.cannotCreateOutput, "\(destination) is a directory", remedy: .nameAFile)
        }
        if let kind, kind != .regular {
            throw FastgetError(
                .cannotCreateOutput, "\(destination) is not a regular file", remedy: .nameTheSpecialFile)
        }
    }

    /// Carries on from `journal`, usable for this download: its `.part` kept, its mirrors,
    /// digest and validator with what the probe adds (a 206 is held to both).
    private static func resuming(
        _ journal: Journal, header: Journal, destination: String, resource: RemoteResource, options: DownloadOptions,
        started: Double, stop: () -> String?
    ) throws(FastgetError) -> StartPoint {
        let output = try OutputFile(finalPath: destination, length: resource.length, keeping: true, url: header.url, stop: stop)
        var resumed = header
        (resumed.mirrors, resumed.digest, resumed.failedMirrors) = (journal.mirrors, journal.digest, journal.failedMirrors)
        (resumed.keptUnchecked, resumed.adoptedState, resumed.seconds) = (journal.keptUnchecked, journal.adoptedState, journal.seconds)
        resumed.validator = journal.validator.map { $0.filled(from: header.validator) } ?? header.validator
        let segments = SegmentPlan.resumed(journal.segments, options: options)
        return StartPoint(
            output: output, table: SegmentTable(journal: segments),
            checkpointer: Checkpointer(path: SidecarFiles(destination).journal, output: output, header: resumed, started: started),
            segmented: true, resumedBytes: journal.bytesWritten,
            replacesDestination: options.replacesExistingFile || replacesLarger(destination, resource: resource, options),
            recordedMirrors: journal.mirrors, recordedDigest: journal.digest, failedMirrors: journal.failedMirrors,
            resumedValidator: resumed.validator, keptUnchecked: journal.keptUnchecked, adoptedState: journal.adoptedState,
            earlierSeconds: journal.seconds)
    }

    /// A file at the destination that the download may neither replace nor continue: left in
    /// place with `keepsExistingFile` when it has the server's length (returns), refused otherwise.
    private static func leaveExisting(
        _ destination: String, resource: RemoteResource, options: DownloadOptions, notice: (String) -> Void
    ) throws(FastgetError) {
        guard options.keepsExistingFile else {
            throw FastgetError(
                .cannotCreateOutput, "\(destination) already exists",
                remedy: .replaceExisting(continuable: true, elsewhere: true))
        }
        guard let length = resource.length, FileSystem.size(destination) == length else {
            throw FastgetError(
                .cannotCreateOutput, "\(destination) already exists and does not have the server's length",
                remedy: .replaceExisting(continuable: true, elsewhere: false))
        }
        notice("\(destination) already exists with the server's length; leaving it (--no-clobber)")
    }

    /// `-c` on a file larger than the server's downloads it again and replaces it; a resumed
    /// run of that download must too (the journal does not say why it began).
    private static func replacesLarger(_ destination: String, resource: RemoteResource, _ options: DownloadOptions) -> Bool {
        guard options.continuePartial, let length = resource.length, let size = FileSystem.size(destination) else { return false }
        return size > length
    }

    /// A segmented start from nothing: the journal is written the moment the `.part` exists.
    private static func fresh(
        _ output: OutputFile, table: SegmentTable, journalPath: String, header: Journal,
        replacesDestination: Bool, journalLeft: Bool = false, started: Double
    ) throws(FastgetError) -> StartPoint {
        // Called once any journal at `journalPath` was removed (`journalLeft` when that failed):
        // until it writes one, there is none.
        let checkpointer = Checkpointer(path: journalPath, output: output, header: header, present: journalLeft, started: started)
        // A file small enough to come in one short request has nothing to plan: a kill before
        // it is in costs at most that request again. Its journal is written only if it stops
        // short (the last checkpoint).
        if header.length > StartPoint.unplannedLimit { try checkpointer.begin(table) }
        return StartPoint(
            output: output, table: table, checkpointer: checkpointer, segmented: true, resumedBytes: 0,
            replacesDestination: replacesDestination)
    }

    /// Files up to this size start without a first journal.
    static let unplannedLimit: Int64 = 256 * 1024

    /// Refuses, before any byte is fetched or preallocated, a file that cannot fit: a server
    /// announcing 10 TB must not make preallocation fill the disk.
    private static func checkSpace(for destination: String, needed: Int64, freed: Int64) throws(FastgetError) {
        let directory = FileSystem.directory(of: destination)
        guard needed > 0, let available = FileSystem.availableBytes(in: directory), needed > available + freed else { return }
        throw FastgetError(
            .localIO,
            "not enough space for \(destination): it needs \(ByteCount.formatted(Double(needed))), \(ByteCount.formatted(Double(available + freed))) available in \(directory)"
        )
    }

    /// Whether `destination` is this download, finished by an earlier run that stopped between
    /// renaming `.part` to the final name and removing the journal: the journal names this URL,
    /// length and validator and claims every byte (the one written just before the rename
    /// does), the `.part` is gone, and the final file has the journal's length. A journal that
    /// claims less is of a download that never reached its rename (a `.part` removed since, a
    /// digest that failed): it vouches for nothing at the final name.
    private static func finishedEarlier(_ destination: String, journalPath: String, partPath: String, header: Journal) -> Bool {
        guard case .success(let journal)? = Checkpointer.load(journalPath), journal.bytesWritten == journal.length else { return false }
        return !FileSystem.exists(partPath) && journal.url == header.url && journal.length == header.length
            && Validator.same(journal.validator, header.validator) && FileSystem.size(destination) == journal.length
    }

    /// A `.part` of `size` bytes can carry on from `journal` when it holds every byte the journal
    /// claims and is not longer than the file: shorter happens when a run stopped before it grew
    /// the file to its length (`-c` renames the user's file to `.part` first).
    private static func partFits(_ size: Int64?, _ journal: Journal) -> Bool {
        guard let size else { return false }
        let claimedEnd = journal.segments.filter { $0.written > $0.start }.map(\.written).max() ?? 0
        return size <= journal.length && size >= claimedEnd
    }

    /// What a run would make of the journal at `path` for `header` (`Download.dryRun`).
    static func journalState(
        at path: String, partPath: String, header: Journal, continuing: Bool
    ) -> (DownloadPlan.JournalState, Journal?) {
        guard FileSystem.exists(path) else { return (.none, nil) }
        var reason = ""
        guard let journal = usableJournal(at: path, partPath: partPath, header: header, continuing: continuing, notice: { reason = $0 })
        else { return (.unusable(reason), nil) }
        return (.resumable(bytesOnDisk: journal.bytesWritten), journal)
    }

    /// The journal at `path` when it describes this URL, length and validator (resuming needs
    /// one: without it two versions of the same length look alike) and its `.part` holds what it
    /// claims; otherwise nil, with a notice saying why it was not used.
    /// `continuing` (`-c`): the user accepts bytes no validator vouches for, as `-c` on a file
    /// does — and such a journal may hold the user's own prefix, moved to `.part`.
    private static func usableJournal(
        at path: String, partPath: String, header: Journal, continuing: Bool,
        notice: (String) -> Void
    ) -> Journal? {
        switch Checkpointer.load(path) {
        case nil:
            return nil
        case .failure(let error):
            notice("ignoring \(path) (\(error)); starting over")
            return nil
        case .success(let journal):
            if let reason = refusal(of: journal, partPath: partPath, header: header, continuing: continuing) {
                notice("not resuming from \(path): \(reason); starting over")
                return nil
            }
            return journal
        }
    }

    /// Why `journal` (read, intact) cannot be resumed for `header`; nil when it can.
    static func refusal(of journal: Journal, partPath: String, header: Journal, continuing: Bool) -> String? {
        if journal.url != header.url { return "it is for \(journal.url)" }
        if journal.length != header.length { return "the file's length changed from \(journal.length) to \(header.length) bytes" }
        if journal.validator?.cannotTell(header.validator) == true {
            return
                "it was written by an earlier release, which did not record the server's weak ETag (now \(header.validator?.etag ?? "")), so a changed file could not be told from this one"
        }
        if !Validator.same(journal.validator, header.validator) {
            return
                "the file changed on the server (\(journal.validator?.description ?? "no validator") → \(header.validator?.description ?? "no validator"))"
        }
        if journal.validator?.headerValue == nil && !continuing {
            return journal.validator == nil
                ? "the server gives no ETag or Last-Modified, so a changed file could not be told from this one"
                : "the server gives only a weak ETag and no Last-Modified, so a changed file could not be told from this one"
        }
        return partFits(FileSystem.size(partPath), journal) ? nil : "\(partPath) is missing or has the wrong size"
    }

    /// `-c` on a file without a journal: keep its bytes as the file's prefix and fetch the rest
    /// (or, with aria2's or axel's state file beside it, the bytes that file marks done).
    /// `prefix`: the file holding them, `destination` or another program's `NAME.part`.
    private static func continuing(
        destination: String, from prefix: String, resource: RemoteResource, header: Journal,
        options: DownloadOptions, started: Double, notice: (String) -> Void, stop: () -> String?
    ) throws(FastgetError) -> StartPoint? {
        let files = SidecarFiles(destination)
        let localSize = FileSystem.size(prefix) ?? 0
        let checked = (options.checksum ?? (options.checksAnnouncedDigest ? resource.announcedDigest : nil)) != nil
        let keptByLength = "\(prefix) has the server's length (\(localSize) bytes); kept by its length alone, with no digest to check it"
        // aria2 preallocates the whole file: its length says nothing of what is in it.
        var foreign: ForeignState? = nil
        if prefix == destination, let length = resource.length { foreign = try ForeignState.beside(destination, length: length) }
        if foreign == nil, let length = resource.length, localSize == length, prefix == destination {
            notice(checked ? "\(destination) is already complete (\(length) bytes)" : keptByLength) // a digest is checked next
            return nil
        }
        // Nothing left to fetch (an empty file, or every byte marked done): no range is needed.
        if let foreign, localSize == resource.length, foreign.complete.reduce(0, { $0 + $1.count }) == localSize,
            localSize == 0 || !resource.isSegmentable
        {
            notice("\(destination) is complete: \(foreign.path) marks all of its \(localSize) bytes done")
            ForeignState.removeAdopted(foreign.identity, beside: destination)
            return nil
        }
        guard resource.isSegmentable, let length = resource.length else {
            throw FastgetError(
                .protocolViolation, "cannot continue \(destination): the server does not support byte ranges",
                remedy: .downloadAgain)
        }
        if let foreign {
            let (entries, done) = try entries(continuing: destination, from: foreign, length: length, options: options)
            try checkSpace(for: destination, needed: length - localSize, freed: 0)
            notice(
                "continuing \(destination) from \(foreign.path): \(foreign.tool.rawValue) marks \(done) of \(length) bytes done; fetching the rest")
            return try adopt(
                destination, from: prefix, entries: entries, header: header, resumedBytes: done, owned: false,
                adoptedState: foreign.identity, started: started, stop: stop)
        }
        let foreignPart = prefix == files.part
        if localSize > length && foreignPart {
            throw FastgetError(
                .cannotCreateOutput,
                "\(prefix) is larger than the server's file (\(localSize) > \(length) bytes), so it is not its start; leaving it alone",
                remedy: .replaceExisting(continuable: false, elsewhere: false))
        }
        if localSize > length {
            notice("\(prefix) is larger than the server's file (\(localSize) > \(length) bytes); downloading it again")
            try? FileSystem.remove(files.journal)
            let output = try OutputFile(finalPath: destination, length: length, url: header.url, stop: stop)
            let ranges = SegmentPlan.ranges(length: length, options: options)
            return try fresh(
                output, table: SegmentTable(ranges: ranges), journalPath: files.journal, header: header,
                replacesDestination: true, started: started)
        }
        try checkSpace(for: destination, needed: length - localSize, freed: 0)
        var entries = [Journal.Entry(start: 0, end: localSize, written: localSize)].filter { $0.end > 0 }
        for range in SegmentPlan.ranges(length: length - localSize, options: options) {
            entries.append(Journal.Entry(start: localSize + range.start, end: localSize + range.end, written: localSize + range.start))
        }
        notice(localSize == length && !checked ? keptByLength : "continuing \(prefix) from byte \(localSize)")
        return try adopt(
            destination, from: prefix, entries: entries, header: header, resumedBytes: localSize, owned: foreignPart, started: started, stop: stop)
    }

    /// Makes `prefix` (the file at `destination`, or another program's `.part`) the `.part` of a
    /// download whose journal has `entries`.
    /// The journal claiming its bytes comes first, durably, and only then does the user's file
    /// move: a stop at any point leaves either the file where it was or a `.part` the journal
    /// resumes. `owned`: the prefix must be this user's alone (another program's `.part`).
    /// Its bytes were fetched by no request of this run: without a digest to check them, the
    /// finished file gets no completion mark.
    private static func adopt(
        _ destination: String, from prefix: String, entries: [Journal.Entry], header: Journal, resumedBytes: Int64,
        owned: Bool, adoptedState: Journal.AdoptedState? = nil, started: Double, stop: () -> String?
    ) throws(FastgetError) -> StartPoint {
        let files = SidecarFiles(destination)
        // Carried by every checkpoint: a resumed run knows what this one kept and adopted.
        var carried = header
        (carried.keptUnchecked, carried.adoptedState) = (resumedBytes > 0, adoptedState)
        var journal = carried
        journal.segments = entries
        // Through no link, and another program's `.part` only if it is this user's alone.
        let prefixFile = try SidecarFiles.openExisting(prefix, readOnly: true, owned: owned)
        // A `.part` left from before (a journal that was not used, a single stream) must be
        // gone, durably, before a journal claims bytes of `NAME.part`: stopped before the
        // rename, the journal would vouch for its bytes.
        do throws(SystemError) {
            if prefix != files.part {
                try FileSystem.remove(files.part)
                try FileSystem.syncDirectory(containing: destination)
            }
            try prefixFile.sync()
        } catch {
            throw FastgetError.local(error, path: prefix)
        }
        try Checkpointer.write(journal, to: files.journal, durably: true)
        do {
            if prefix != files.part {
                try FileSystem.rename(destination, to: files.part)
                try FileSystem.syncDirectory(containing: destination)
            }
        } catch {
            throw FastgetError.local(error, path: destination)
        }
        let output = try OutputFile(
            finalPath: destination, length: header.length, keeping: true, owned: owned, url: header.url, stop: stop)
        return StartPoint(
            output: output, table: SegmentTable(journal: entries),
            checkpointer: Checkpointer(path: files.journal, output: output, header: carried, started: started),
            segmented: true, resumedBytes: resumedBytes, replacesDestination: false,
            keptUnchecked: carried.keptUnchecked, adoptedState: adoptedState)
    }
}
