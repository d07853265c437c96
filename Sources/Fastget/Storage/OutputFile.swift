/// The file being written: `<name>.part` at full length (sparse, preallocated where the file
/// system can), renamed to `<name>` only once every byte is in.
final class OutputFile: WriteTarget, Sendable {
    let finalPath: String
    let partPath: String
    private let handle: FileDescriptor
    /// The file's device and inode, from its first `fstat`: an open file keeps them, so the
    /// checks that its name still names it (`isAt`) look only at the name.
    private let identity: FileSystem.Status?
    /// The length the file was given when it was opened: the final `finish` needs no `fstat`
    /// to learn it is right (the workers write within it). Nil when not known.
    private let sized: Int64?
    /// The first failed `fdatasync`/`fsync`, kept for good. Linux reports a writeback error
    /// (EIO, ENOSPC, EDQUOT) to one sync per open file; the next sync on the same descriptor
    /// returns 0 although the lost pages never reached the disk. So after one failure no sync
    /// may vouch for this file again: every later one fails the same way, which stops the
    /// journal where it was (still true) and the final rename.
    private let syncFailure = Locked<FastgetError?>(nil)

    /// The most one `fallocate` reserves: on tmpfs it zeroes every page (about 1 GiB/s here)
    /// and a slow disk may take as long, so a stop is looked at between pieces this size.
    static let preallocationStep: Int64 = 256 << 20
    /// Files shorter than this are not preallocated: one response brings them in order within
    /// moments, so a reservation saves nothing, and on tmpfs `fallocate` zeroes every page
    /// that the writes then fill again (a twentieth of a small file's cost).
    static let preallocationMinimum: Int64 = 1 << 20

    /// Creates `<finalPath>.part` anew (a regular file there is replaced, anything else refused;
    /// see `SidecarFiles.replace`) and sizes it to `length` when known.
    /// - Parameters:
    ///   - keeping: open the existing `.part` of a resumed download instead, a regular file
    ///     only; it may be shorter than `length` (a run stopped before growing it), never longer.
    ///   - owned: a kept `.part` must also be this user's with no other name
    ///     (`SidecarFiles.ownershipProblem`).
    ///   - url: the download's URL without credentials, which the `.part`'s mark names.
    ///   - stop: why the download must stop, nil while it need not: asked between pieces of
    ///     the preallocation, which throws `.cancelled` (and removes a `.part` it created).
    init(
        finalPath: String, length: Int64?, keeping: Bool = false, owned: Bool = true, url: String = "",
        stop: () -> String? = { nil }
    ) throws(FastgetError) {
        self.finalPath = finalPath
        partPath = SidecarFiles(finalPath).part
        handle = keeping ? try SidecarFiles.openExisting(partPath, owned: owned) : try SidecarFiles.replace(partPath)
        let status = try? handle.status()
        identity = status
        // Marked before a byte goes in: a `.part` with bytes and neither a journal nor this mark
        // is another program's (`SidecarFiles.partIsForeign`).
        var marked = false
        if let inode = status?.inode {
            marked = handle.setAttribute(SidecarFiles.partMark, SidecarFiles.partMarkValue(inode: inode, url: url))
        }
        // An earlier release's marks go: a completion text it had must not vouch for the file
        // once it is finished unmarked (`-c`), and its `.part` mark is not needed once this
        // release's is on (without one, where the file system refused it, it is what a rerun
        // knows the file by).
        if keeping {
            handle.removeAttribute(CompletionMark.complete)
            if marked { handle.removeAttribute(SidecarFiles.earlierPartMark) }
        }
        guard let length, length > 0 else {
            sized = length == 0 && status?.size == 0 ? 0 : nil
            return
        }
        if keeping {
            var size = status?.size ?? -1
            if status == nil {
                do { size = try handle.size() } catch { throw FastgetError.local(error, path: partPath) }
            }
            sized = length
            if size == length { return }
            guard size < length else { throw FastgetError(.localIO, "\(partPath) is longer than the journal's length") }
        } else {
            sized = length
        }
        do throws(SystemError) {
            try handle.setLength(length)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
        var offset: Int64 = length < OutputFile.preallocationMinimum ? length : 0
        while offset < length {
            if let reason = stop() {
                // A `.part` made just now holds nothing: it goes rather than stay without a journal.
                if !keeping { try? FileSystem.remove(partPath) }
                throw FastgetError(.cancelled, reason)
            }
            let count = min(OutputFile.preallocationStep, length - offset)
            do {
                guard try handle.preallocate(count, from: offset) else { return }
            } catch {
                throw FastgetError.local(error, path: partPath)
            }
            offset += count
        }
    }

    /// Flushes written data to the device (the first step of every checkpoint).
    func syncData() throws(FastgetError) {
        try sync("fdatasync") { () throws(SystemError) in try handle.syncData() }
    }

    /// Runs the sync `body` unless an earlier one failed; a failure is remembered (see `syncFailure`).
    private func sync(_ operation: String, _ body: () throws(SystemError) -> Void) throws(FastgetError) {
        if let failure = syncFailure.withLock({ $0 }) { throw failure }
        do throws(SystemError) {
            #if FASTGET_FAULTS
            if FaultInjection.shouldFailSync(partPath) { throw SystemError(operation, errno: Errno.ioError) }
            #endif
            try body()
        } catch {
            let failure = FastgetError.local(error, path: partPath)
            syncFailure.withLock { $0 = $0 ?? failure }
            throw failure
        }
    }

    /// Writes `bytes` at `offset`, all of them. Safe from several threads at once (positional).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(FastgetError) {
        #if FASTGET_FAULTS
        if FaultInjection.shouldFail(partPath, bytes.count) {
            throw FastgetError.local(SystemError("pwrite", errno: Errno.noSpace), path: partPath)
        }
        #endif
        do {
            try handle.write(bytes, at: offset)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
    }

    /// Moves `count` bytes from `pipe` into the file at `offset` (the zero-copy path).
    func write(from pipe: SplicePipe, at offset: Int64, count: Int) throws(FastgetError) {
        #if FASTGET_FAULTS
        if FaultInjection.shouldFail(partPath, count) {
            throw FastgetError.local(SystemError("splice", errno: Errno.noSpace), path: partPath)
        }
        #endif
        do {
            try pipe.drain(into: handle, at: offset, count: count)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
    }

    /// Starts writeback of bytes already written, so the final fsync (and later checkpoints)
    /// overlap the transfer instead of following it.
    func startWriteback(_ range: ByteRange) {
        handle.startWriteback(offset: range.start, length: range.count)
    }

    /// The digest of the first `length` bytes, read back from the file in `buffer`-sized pieces.
    /// `stop`: why the check must end early, nil while it need not; asked before every piece
    /// (a stop is honoured within one read, not after gigabytes), and it throws `.cancelled`.
    func digest(
        _ algorithm: Checksum.Algorithm, length: Int64, buffer: UnsafeMutableRawBufferPointer, stop: () -> String? = { nil }
    ) throws(FastgetError) -> String {
        try OutputFile.digest(algorithm, of: handle, at: partPath, length: length, buffer: buffer, stop: stop)
    }

    /// The digest of the whole file at `path` (one already complete); `stop` as above.
    static func digest(_ algorithm: Checksum.Algorithm, ofFile path: String, stop: () -> String? = { nil }) throws(FastgetError) -> String {
        let file: FileDescriptor
        let length: Int64
        do {
            file = try FileDescriptor.openReadOnly(path)
            length = try file.size()
        } catch {
            throw FastgetError.local(error, path: path)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 17, alignment: 16)
        defer { buffer.deallocate() }
        return try digest(algorithm, of: file, at: path, length: length, buffer: buffer, stop: stop)
    }

    private static func digest(
        _ algorithm: Checksum.Algorithm, of handle: FileDescriptor, at partPath: String, length: Int64,
        buffer: UnsafeMutableRawBufferPointer, stop: () -> String?
    ) throws(FastgetError) -> String {
        guard let digest = Digest(algorithm.digest) else {
            throw FastgetError(.localIO, "libcrypto cannot compute \(algorithm.rawValue)")
        }
        var offset: Int64 = 0
        while offset < length {
            #if FASTGET_FAULTS
            FaultInjection.willReadForDigest(partPath)
            #endif
            if let reason = stop() { throw FastgetError(.cancelled, reason) }
            let want = Int(min(Int64(buffer.count), length - offset))
            let count: Int
            do {
                count = try handle.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: offset)
            } catch {
                throw FastgetError.local(error, path: partPath)
            }
            guard count > 0 else { throw FastgetError(.localIO, "\(partPath) is shorter than \(length) bytes") }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
        return digest.finish()
    }

    /// Whether `path` names the file this writes (device and inode, a link not followed):
    /// a `.part` swapped during the run is not, whatever its bytes.
    func isAt(_ path: String) -> Bool {
        guard let ours = identity ?? (try? handle.status()), let there = FileSystem.entryStatus(path) else { return false }
        return there.isSameFile(as: ours)
    }

    /// Refuses to rename, or to report as saved, a file at `path` that is not this one.
    private func checkIsAt(_ path: String, _ what: String) throws(FastgetError) {
        guard !isAt(path) else { return }
        throw FastgetError(
            .cannotCreateOutput, "\(path) was replaced by another file \(what); leaving it alone",
            remedy: .moveAwayAndStartAgain)
    }

    /// Makes the file durable and gives it its final name: set the length (for a stream of
    /// unknown length), fsync, rename, fsync the directory. Unless `replacing`, a file that
    /// appeared at the final name meanwhile is left alone: that throws `.cannotCreateOutput` and
    /// the `.part` stays (open, so that a last checkpoint can still be taken). So does a `.part`
    /// that is not this file any more (`isAt`), checked just before the rename, and the final
    /// name just after. Fails without a rename when any earlier sync of the file failed.
    /// `mark`: the download it completes (`CompletionMark`), recorded on the file before the
    /// sync. `modified`: seconds since the epoch to give the file as its modification time.
    /// `origin`: a URL to record in `user.xdg.origin.url` (`DownloadOptions.recordsOrigin`).
    func finish(length: Int64, replacing: Bool, mark: Journal? = nil, modified: Int? = nil, origin: String? = nil) throws(FastgetError) {
        do throws(SystemError) {
            if sized != length, try handle.size() != length { try handle.setLength(length) }
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
        if let modified { HTTPDate.setModificationTime(handle.descriptor, seconds: modified) }
        // The `.part`'s mark becomes the completion mark; without one, it goes after the rename.
        let marked = mark.map { CompletionMark.mark(handle, as: $0) } ?? false
        if let origin { handle.setAttribute(CompletionMark.origin, origin) }
        #if FASTGET_FAULTS
        FaultInjection.willSyncForRename(partPath)
        #endif
        try sync("fsync") { () throws(SystemError) in try handle.sync() }
        try checkIsAt(partPath, "while it was downloaded")
        do {
            if replacing {
                try FileSystem.rename(partPath, to: finalPath)
            } else {
                try FileSystem.renameWithoutReplacing(partPath, to: finalPath)
            }
        } catch let error where error.errno == Errno.fileExists {
            throw FastgetError(
                .cannotCreateOutput, "\(finalPath) appeared while downloading; the download is kept as \(partPath)",
                remedy: .finalNameTaken(path: finalPath))
        } catch {
            throw FastgetError.local(error, path: finalPath)
        }
        try checkIsAt(finalPath, "as it was renamed")
        // Only now is it no `.part`: until the rename, a kill or a file that appeared at the
        // final name leaves a `.part` that the rerun must know for fastget's.
        if !marked { handle.removeAttribute(SidecarFiles.partMark) }
        do {
            try handle.close()
            try FileSystem.syncDirectory(containing: finalPath)
        } catch {
            throw FastgetError.local(error, path: finalPath)
        }
    }
}
