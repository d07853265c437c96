import Synchronization

/// A snapshot of a running download, delivered from the coordinator thread.
public struct DownloadProgress: Sendable {
    /// The file's length, nil while unknown (a stream without Content-Length).
    public let totalBytes: Int64?
    /// Bytes written to the output so far.
    public let completedBytes: Int64
    /// Seconds since the download started (probe included).
    public let elapsed: Double
    /// Each segment: its range and how far it has been written.
    public let segments: [SegmentProgress]
}

public struct SegmentProgress: Sendable {
    public let range: ByteRange
    /// The first byte not yet written.
    public let written: Int64
}

/// What a finished download did.
public struct DownloadReport: Sendable {
    /// Where the file is.
    public let path: String
    public let bytes: Int64
    public let seconds: Double
    /// Parallel segments used (1 for a single stream).
    public let segments: Int
    /// Attempts repeated after temporary failures.
    public let retries: Int
    public let resource: RemoteResource
}

/// One file to download: probe, plan, parallel ranged transfer, and the final rename.
///
/// `run` blocks the calling thread, which becomes the coordinator: it starts one thread per
/// segment, reports progress, and returns when the file is complete under its final name.
/// `cancel` may be called from any thread.
///
/// The library does not change signal dispositions. A process that uses it should ignore
/// `SIGPIPE` (TLS writes go through the socket, where `MSG_NOSIGNAL` cannot be applied).
public final class Download: Sendable {
    public let url: HTTPURL
    public let options: DownloadOptions
    private let cancelRequested = Atomic<Bool>(false)
    private let current = Mutex<Transfer?>(nil)

    /// - Throws: `FastgetError` with code `.usage` for a malformed URL or invalid options.
    public init(url: String, options: DownloadOptions = DownloadOptions()) throws(FastgetError) {
        do {
            self.url = try HTTPURL(url)
        } catch {
            throw FastgetError(.usage, "invalid URL '\(url)': \(error)")
        }
        try options.validate()
        self.options = options
    }

    /// The path the file will be saved to when `options.output` is not set.
    public var defaultDestination: String {
        let name = FileName.derived(from: url)
        return options.directory == "." ? name : options.directory + "/" + name
    }

    /// Stops the download from any thread: `run` throws `.cancelled`; the `.part` file stays.
    public func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        current.withLock { $0?.stop() }
    }

    /// Downloads the file. `progress` is called on this thread at most every
    /// `options.progressInterval` seconds, and once at the end.
    public func run(progress: (DownloadProgress) -> Void = { _ in }) throws(FastgetError) -> DownloadReport {
        let started = MonotonicClock.seconds()
        let connector = Connector(connectTimeout: options.connectTimeout, ioTimeout: options.timeout,
                                  caFile: options.caFile, verifyPeer: !options.insecure)
        let pool = ConnectionPool()
        defer { pool.removeAll() }
        let requester = Requester(connector: connector, pool: pool, options: options, url: url)

        let resource: RemoteResource
        do {
            resource = try Prober(requester: requester).probe(url)
        } catch {
            throw FastgetError.from(error, url: url)
        }
        try checkCancelled()

        let destination = options.output ?? defaultDestination
        if FileSystem.isDirectory(destination) {
            throw FastgetError(.cannotCreateOutput, "\(destination) is a directory", hint: "use -o FILE to name the output")
        }
        if !options.overwrite && FileSystem.exists(destination) {
            throw FastgetError(.cannotCreateOutput, "\(destination) already exists",
                               hint: "use --overwrite to replace it, or -o FILE to save elsewhere")
        }
        let output = try OutputFile(finalPath: destination, length: resource.length)
        let transfer = Transfer(requester: requester, resource: resource, output: output, options: options)

        let segmented = resource.isSegmentable
        let ranges = segmented
            ? SegmentPlan.tiles(length: resource.length!, segments: options.segments, minimumSize: options.minimumSegmentSize)
            : [ByteRange(start: 0, end: resource.length ?? 0)]
        let table = SegmentTable(ranges: ranges)
        let buffers = BufferPool(count: ranges.count, size: options.bufferSize)

        current.withLock { $0 = transfer }
        defer { current.withLock { $0 = nil } }
        if cancelRequested.load(ordering: .acquiring) { transfer.stop() }

        var threads: [PosixThread] = []
        transfer.runningWorkers.store(ranges.count, ordering: .releasing)
        for id in 0..<ranges.count {
            do {
                threads.append(try PosixThread {
                    let worker = SegmentWorker(id: id, transfer: transfer, buffer: buffers.buffer(id),
                                               splice: segmented && resource.url.scheme == .http)
                    if segmented { worker.run(table: table) } else { worker.runStream(progress: table.segments[0]) }
                    transfer.workerFinished()
                })
            } catch {
                transfer.fail(FastgetError(.localIO, "cannot start a worker thread: \(error.reason)"))
                transfer.runningWorkers.subtract(ranges.count - id, ordering: .releasing)
                break
            }
        }

        func snapshot() -> DownloadProgress {
            DownloadProgress(
                totalBytes: resource.length,
                completedBytes: table.bytesWritten,
                elapsed: MonotonicClock.seconds() - started,
                segments: table.segments.map {
                    SegmentProgress(range: ByteRange(start: $0.start, end: $0.end.load(ordering: .relaxed)),
                                    written: $0.written.load(ordering: .relaxed))
                })
        }

        var lastReport = 0.0
        var flushed = table.segments.map(\.start)
        while transfer.runningWorkers.load(ordering: .acquiring) > 0 {
            transfer.wake.wait(seconds: options.progressInterval)
            // Push what the workers wrote since the last tick towards the disk, off their path.
            for (index, segment) in table.segments.enumerated() {
                let written = segment.written.load(ordering: .acquiring)
                if written - flushed[index] >= Download.writebackStep {
                    output.startWriteback(ByteRange(start: flushed[index], end: written))
                    flushed[index] = written
                }
            }
            let now = MonotonicClock.seconds()
            if now - lastReport >= options.progressInterval {
                lastReport = now
                progress(snapshot())
            }
        }
        for thread in threads { thread.join() }

        if let failure = transfer.failure { throw failure }
        try checkCancelled()
        let length = segmented ? resource.length! : transfer.streamedLength.load(ordering: .acquiring)
        guard length >= 0, !segmented || table.isComplete else {
            throw FastgetError(.protocolViolation, "the transfer ended before the file was complete")
        }
        try output.finish(length: length)
        progress(snapshot())
        return DownloadReport(path: destination, bytes: length, seconds: MonotonicClock.seconds() - started,
                              segments: ranges.count, retries: transfer.retries.load(ordering: .relaxed), resource: resource)
    }

    /// Bytes a segment accumulates before the coordinator starts their writeback.
    static let writebackStep: Int64 = 4 << 20

    private func checkCancelled() throws(FastgetError) {
        if cancelRequested.load(ordering: .acquiring) {
            throw FastgetError(.cancelled, "download cancelled")
        }
    }
}
