/// `-N` (`DownloadOptions.timestamping`): a file that is there already is fetched again only
/// when the server says it changed.
extension Download {
    /// The report of a download that found its file unchanged on the server (nothing fetched);
    /// nil when there is no file to compare, nothing to compare it by, or it changed.
    func unchangedSince(_ requester: Requester, started: Double, tell: (String) -> Void) throws(FastgetError) -> DownloadReport? {
        let path = destination
        guard options.timestamping, FileSystem.kind(path) == .regular, let size = FileSystem.size(path) else { return nil }
        let condition: (name: String, value: String)
        if let etag = CompletionMark.etag(path, url: url.withoutCredentials.description) {
            condition = ("If-None-Match", etag)
        } else if let seconds = HTTPDate.modificationSeconds(path) {
            condition = ("If-Modified-Since", HTTPDate.text(seconds))
        } else {
            return nil
        }
        let prober = Prober(requester: requester, track: { [control] in control.withLock { $0.probing }?.track(0, $0) })
        let unchanged: Bool
        do {
            unchanged = try prober.isUnchanged(url, conditions: [condition])
        } catch {
            throw FastgetError.from(error, url: url)
        }
        requester.events.take().forEach(hub.publish)
        guard unchanged else { return nil }
        tell("\(path) is unchanged on the server (\(condition.name): \(condition.value)); nothing fetched")
        let resource = RemoteResource(
            url: url, length: size, acceptsRanges: false, etag: nil, lastModified: nil, contentDisposition: nil)
        return report(path: path, bytes: size, started: started, workers: 0, requester: requester, resumedBytes: size, resource: resource)
    }
}
