/// A destination that exists and is not a regular file — a character device (`/dev/null`), a
/// FIFO, `/dev/stdout` — is written as a stream, in order, as `-o -` is: no `.part`, no
/// journal, no lock file beside it, no preallocation, and never renamed over, truncated or
/// replaced (`--overwrite` and `-c` change nothing about it). A block device is refused.
/// Only a destination the user named is streamed to: a name derived from the URL or the
/// server is never written through a link, nor into a FIFO or device someone put there
/// (`StartPoint.prepare` refuses anything but a regular file at it).
extension Download {
    /// Whether the file goes out as a stream, in order, with nothing kept to resume from:
    /// `options.outputDescriptor`, or a destination that exists and is not a regular file (a
    /// device, a FIFO, `/dev/stdout`).
    public var writesAsStream: Bool {
        let path = destination
        if options.outputDescriptor != nil { return true }
        guard destinationGiven else { return false }
        if Download.standardDescriptor(path) != nil { return true }
        return FileSystem.kind(path).map { $0 != .regular && $0 != .directory } ?? false
    }

    /// The descriptor `/dev/stdout` and its kin name: written to as it is, since opening
    /// `/proc/self/fd/1` anew would start at offset 0 of a file the shell appends to.
    static func standardDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1": 1
        case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2": 2
        default: nil
        }
    }

    /// Downloads to `options.outputDescriptor`, or into `destination` as a stream when it is not
    /// a regular file; nil when it is one, or nothing is there (the usual `.part` and rename
    /// then apply).
    func writeAsStream(_ run: RunContext) throws(FastgetError) -> DownloadReport? {
        if let descriptor = options.outputDescriptor { return try writeInOrder(to: descriptor, run) }
        guard destinationGiven else { return nil }
        let path = destination
        func stream(to descriptor: Int32) throws(FastgetError) -> DownloadReport {
            if options.continuePartial { run.tell("-c does not apply to \(path), which is not a regular file: the whole file is written to it") }
            return try writeInOrder(to: descriptor, path: path, run)
        }
        if let descriptor = Download.standardDescriptor(path) { return try stream(to: descriptor) }
        switch FileSystem.kind(path) {
        case nil, .regular?, .directory?:
            return nil
        case .blockDevice?:
            throw FastgetError(
                .cannotCreateOutput, "\(path) is a block device", hint: "fastget writes files, not disks: save the file, then copy it")
        case .socket?, .symbolicLink?, .other?:
            throw FastgetError(.cannotCreateOutput, "\(path) is neither a file, a device nor a FIFO: nothing can be written to it")
        case .characterDevice?, .fifo?:
            var told = false
            let file: FileDescriptor?
            do {
                file = try FileDescriptor.openForStreaming(path) {
                    if !told { run.tell("waiting for a reader of \(path)") }
                    told = true
                    return waitForStop(seconds: 0.1) != nil
                }
            } catch  where error.errno == Errno.fileExists {
                throw FastgetError(.cannotCreateOutput, "\(path) was replaced by a file that is not a device or FIFO; it was not written to")
            } catch {
                throw FastgetError.local(error, path: path)
            }
            guard let file else { throw FastgetError(.cancelled, control.withLock { $0.stop?.reason } ?? "download cancelled") }
            defer { try? file.close() }
            return try stream(to: file.descriptor)
        }
    }
}
