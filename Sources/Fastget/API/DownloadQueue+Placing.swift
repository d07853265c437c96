/// Where added downloads go in a queue, and what each destination's claim follows.
extension DownloadQueue {
    /// Where `candidates` go: each to the download of the queue (or earlier among them) for
    /// its URL that has not ended, else appended, in place of ended ones for its URL. Fails,
    /// changing nothing, when another URL saves to a candidate's destination. Looks up each
    /// candidate in the indexes, never at every download: a list adds its lines in constant time.
    static func place(_ candidates: [Download], in entries: inout Entries) -> Result<(placed: [Download], added: [Download]), FastgetError> {
        var byURL: [String: Download] = [:] // the candidates placed so far
        var byDestination: [String: Download] = [:]
        var placed: [Download] = []
        var added: [Download] = []
        for candidate in candidates {
            let url = candidate.urlWithoutCredentials
            if let existing = byURL[url] ?? entries.live(url) {
                placed.append(existing)
                continue
            }
            let destination = candidate.destination
            // Ended downloads count too: a list read as it arrives adds its lines after earlier
            // ones have finished, and those files are the run's results.
            if let clash = byDestination[destination] ?? entries.byDestination[destination], clash.urlWithoutCredentials != url {
                return .failure(
                    FastgetError(
                        .cannotCreateOutput,
                        "\(destination) is already the destination of \(clash.url.withoutCredentials); not downloading \(candidate.url.withoutCredentials) there",
                        remedy: .anotherDestination))
            }
            (byURL[url], byDestination[destination]) = (candidate, candidate)
            placed.append(candidate)
            added.append(candidate)
        }
        for download in added {
            let url = download.urlWithoutCredentials
            if entries.byURL[url] != nil { // every download of this URL has ended: they go
                let ended = entries.downloads.filter { $0.urlWithoutCredentials == url }
                entries.downloads.removeAll { $0.urlWithoutCredentials == url }
                entries.byDestination = entries.byDestination.filter { claim in !ended.contains { $0 === claim.value } }
                entries.next = 0
            }
            entries.downloads.append(download)
            entries.byURL[url] = download
            entries.byDestination[download.destination] = download
        }
        return .success((placed, added))
    }

    /// `download` now saves to `destination` (a name its server gave): it claims that name if
    /// nothing did, and no longer the one it had.
    func moved(_ download: Download, from old: String, to destination: String) {
        state.withLock { entries in
            if entries.byDestination[old] === download { entries.byDestination[old] = nil }
            if entries.byDestination[destination] == nil { entries.byDestination[destination] = download }
        }
    }
}
