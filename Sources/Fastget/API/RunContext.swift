/// What one run of a download needs, made once when the run begins and handed to each of its
/// steps (probe, mirrors, start point, transfer, rename, report) instead of four or five
/// parameters each: the session and the requester its requests go through, when it began, and
/// where its progress and notices go. It holds the caller's closures, so it lives no longer
/// than the run (`Download.perform`).
struct RunContext {
    let session: Session
    let requester: Requester
    /// When the run began, on the monotonic clock.
    let started: Double
    /// The caller's progress shortcut (`run(progress:)`); observers get `.progress` events.
    let progress: (DownloadProgress) -> Void
    /// The caller's notice shortcut (`run(notice:)`); observers get `.notice` events.
    let notice: (String) -> Void
    let hub: EventHub

    /// Tells `text` to the caller's shortcut and to the observers.
    func tell(_ text: String) {
        notice(text)
        hub.publish(.notice(text))
    }

    /// The report of this run for a file of `bytes` at `path`, with what its requests, its
    /// `transfer` and `table` counted. `earlier`: the time of the runs a resumed journal
    /// recorded.
    func report(
        path: String, bytes: Int64, workers: Int, table: SegmentTable? = nil, transfer: Transfer? = nil, resumedBytes: Int64,
        resource: RemoteResource, earlier: Double = 0
    ) -> DownloadReport {
        let statistics = requester.statistics
        var report = DownloadReport(
            path: path, bytes: bytes, seconds: MonotonicClock.seconds() - started, workers: workers,
            steals: table?.steals.load(ordering: .relaxed) ?? 0,
            hedges: table?.hedgesWon.load(ordering: .relaxed) ?? 0,
            hedgesLost: table?.hedgesLost.load(ordering: .relaxed) ?? 0,
            connections: statistics.connections, fullHandshakes: statistics.fullHandshakes,
            resumedHandshakes: statistics.resumedHandshakes,
            retries: transfer?.retries.load(ordering: .relaxed) ?? 0,
            resumedBytes: resumedBytes, resource: resource)
        report.totalSeconds = earlier + report.seconds
        if let transfer { report.sources = transfer.sourceFigures() }
        return report
    }
}
