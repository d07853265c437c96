/// `-N` (`DownloadOptions.timestamping`): a file that is there already is fetched again only
/// when the server says it changed.
extension Download {
    /// The report of a download that found its file unchanged on the server (nothing fetched);
    /// nil when there is no file to compare, nothing to compare it by, or it changed.
    func unchangedSince(_ run: RunContext) throws(FastgetError) -> DownloadReport? {
        let requester = run.requester
        let path = destination
        guard options.timestamping, FileSystem.kind(path) == .regular, let size = FileSystem.size(path) else { return nil }
        let prober = Prober(requester: requester, track: { [control] in control.withLock { $0.probing }?.track(0, $0) })
        let reason: String?
        do {
            reason = try unchangedReason(prober, path: path, size: size)
        } catch {
            throw FastgetError.from(error, url: url)
        }
        requester.events.take().forEach(hub.publish)
        guard let reason else { return nil }
        run.tell("\(path) is unchanged on the server (\(reason)); nothing fetched")
        let resource = RemoteResource(
            url: url, length: size, acceptsRanges: false, etag: nil, lastModified: nil, contentDisposition: nil)
        return run.report(path: path, bytes: size, workers: 0, resumedBytes: size, resource: resource)
    }

    /// Why the file at `path` (`size` bytes) is the server's current one, nil when it is not
    /// or cannot be told.
    private func unchangedReason(_ prober: Prober, path: String, size: Int64) throws -> String? {
        if let etag = CompletionMark.etag(path, url: url.withoutCredentials.description) {
            // The file is the one completed under this ETag, untouched since.
            return try prober.isUnchanged(url, conditions: [("If-None-Match", etag)]) ? "If-None-Match: \(etag)" : nil
        }
        guard let seconds = HTTPDate.modificationSeconds(path) else { return nil }
        // wget's rule: as long as the server's, and not older than its Last-Modified (a 304 to
        // If-Modified-Since would keep a truncated copy of the right age).
        let resource = try prober.probe(url)
        guard resource.length == size, let modified = resource.lastModified, let server = HTTPDate.seconds(modified), server <= seconds
        else { return nil }
        return "Last-Modified: \(modified), not after the file's time; \(size) bytes as the file has"
    }
}
