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
    /// Parallel connections used (1 for a single stream; 0 when nothing had to be fetched).
    public let segments: Int
    /// Times an idle connection took over the second half of a slower one's range.
    public let steals: Int
    /// Times an idle connection fetched a slow range's tail in parallel and delivered first
    /// (`hedges`), or was beaten to it by the slow connection (`hedgesLost`).
    public let hedges: Int
    public let hedgesLost: Int
    /// Connections opened, and for https how many TLS handshakes were full and how many
    /// resumed an earlier session of this download.
    public let connections: Int
    public let fullHandshakes: Int
    public let resumedHandshakes: Int
    /// Attempts repeated after temporary failures.
    public let retries: Int
    /// Bytes that were already on disk from an earlier run.
    public let resumedBytes: Int64
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
    private let current = Locked<Transfer?>(nil)
    private let stopReason = Locked<String>("download cancelled")

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

    /// Stops the download from any thread and keeps it resumable: the workers stop, a last
    /// checkpoint is taken, and `run` throws `.cancelled` ("download paused"). Running the same
    /// download again continues from the journal.
    public func pause() { stop(reason: "download paused") }

    /// Stops the download from any thread: `run` throws `.cancelled`; the `.part` file and its
    /// journal stay, so a later run resumes.
    public func cancel() { stop(reason: "download cancelled") }

    private func stop(reason: String) {
        stopReason.withLock { $0 = reason }
        cancelRequested.store(true, ordering: .releasing)
        current.withLock { $0?.stop(reason: reason) }
    }

    /// How many times a download starts over because the file changed on the server.
    static let maximumRestarts = 2

    /// Downloads the file. `progress` is called on this thread at most every
    /// `options.progressInterval` seconds, and once at the end; `notice` receives one-line
    /// remarks (a journal that was not used, a restart because the file changed).
    public func run(progress: (DownloadProgress) -> Void = { _ in },
                    notice: (String) -> Void = { _ in }) throws(FastgetError) -> DownloadReport {
        let started = MonotonicClock.seconds()
        let connector = Connector(connectTimeout: options.connectTimeout, ioTimeout: options.timeout,
                                  caFile: options.caFile, verifyPeer: !options.insecure)
        let pool = ConnectionPool()
        defer { pool.removeAll() }
        let requester = Requester(connector: connector, pool: pool, options: options, url: url)
        var restarts = 0
        var singleStream = false
        while true {
            let resource: RemoteResource
            do {
                resource = try Prober(requester: requester).probe(url)
            } catch {
                throw FastgetError.from(error, url: url)
            }
            try checkCancelled()
            let destination = options.output ?? defaultDestination
            guard let start = try StartPoint.prepare(destination: destination, url: url, resource: resource,
                                                     options: options, singleStream: singleStream, notice: notice) else {
                let length = resource.length ?? 0
                let statistics = connector.statistics
                return DownloadReport(path: destination, bytes: length, seconds: MonotonicClock.seconds() - started,
                                      segments: 0, steals: 0, hedges: 0, hedgesLost: 0, connections: statistics.connections,
                                      fullHandshakes: statistics.fullHandshakes, resumedHandshakes: statistics.resumedHandshakes,
                                      retries: 0, resumedBytes: length, resource: resource)
            }
            let transfer = Transfer(requester: requester, originalURL: url, resource: resource, output: start.output, options: options,
                                    validator: start.segmented ? Validator(resource) : nil)
            current.withLock { $0 = transfer }
            defer { current.withLock { $0 = nil } }
            if cancelRequested.load(ordering: .acquiring) { transfer.stop(reason: stopReason.withLock { $0 }) }

            // One worker per unfinished segment, up to the segment count asked for; on resume a
            // journal may hold more segments (from steals) than workers.
            let workers = min(options.segments, max(1, start.table.unfinishedCount))
            let coordinator = Coordinator(transfer: transfer, table: start.table,
                                          buffers: BufferPool(count: start.segmented ? workers : 1, size: options.bufferSize),
                                          checkpointer: start.checkpointer, segmented: start.segmented, started: started)
            do {
                try coordinator.run(progress: progress)
            } catch where (transfer.resourceChanged || transfer.rangesLost) && restarts < Download.maximumRestarts {
                restarts += 1
                if transfer.rangesLost {
                    // The old bytes came from ranges the server still honoured; they are right,
                    // but a stream from zero cannot skip them, so they go.
                    singleStream = true
                    notice("\(error.message); downloading in one stream from the start")
                } else {
                    notice("\(error.message); starting over")
                }
                start.checkpointer?.remove()
                try? FileSystem.remove(start.output.partPath)
                continue
            }
            let length = start.segmented ? resource.length! : transfer.streamedLength.load(ordering: .acquiring)
            guard length >= 0, !start.segmented || start.table.isComplete else {
                throw FastgetError(.protocolViolation, "the transfer ended before the file was complete")
            }
            try start.output.finish(length: length)
            start.checkpointer?.remove()
            let statistics = connector.statistics
            return DownloadReport(path: destination, bytes: length, seconds: MonotonicClock.seconds() - started,
                                  segments: coordinator.buffers.count, steals: start.table.steals.load(ordering: .relaxed),
                                  hedges: start.table.hedgesWon.load(ordering: .relaxed),
                                  hedgesLost: start.table.hedgesLost.load(ordering: .relaxed),
                                  connections: statistics.connections, fullHandshakes: statistics.fullHandshakes,
                                  resumedHandshakes: statistics.resumedHandshakes,
                                  retries: transfer.retries.load(ordering: .relaxed),
                                  resumedBytes: start.resumedBytes, resource: resource)
        }
    }

    private func checkCancelled() throws(FastgetError) {
        if cancelRequested.load(ordering: .acquiring) {
            throw FastgetError(.cancelled, stopReason.withLock { $0 })
        }
    }
}
