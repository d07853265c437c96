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
            let claims = (byDestination[destination].map { [$0] } ?? []) + (entries.byDestination[destination] ?? [])
            let clash =
                claims.first(where: { $0.urlWithoutCredentials != url }).map { $0.url.withoutCredentials.description }
                ?? entries.endedClaims[destination].flatMap { $0.url != url ? $0.url : nil }
            if let clash {
                return .failure(
                    FastgetError(
                        .cannotCreateOutput,
                        "\(destination) is already the destination of \(clash); not downloading \(candidate.url.withoutCredentials) there",
                        remedy: .anotherDestination))
            }
            (byURL[url], byDestination[destination]) = (candidate, candidate)
            placed.append(candidate)
            added.append(candidate)
        }
        for download in added {
            let ended = entries.byURL[download.urlWithoutCredentials] ?? [] // all ended: they go
            ended.forEach { entries.delete($0) }
            entries.insert(download)
        }
        return .success((placed, added))
    }

    /// `download` now saves to `destination` (a name its server gave): it claims that name,
    /// and no longer the one it had. Nothing for a download no longer in the queue.
    func moved(_ download: Download, from old: String, to destination: String) {
        state.withLock { entries in
            guard entries.byDestination[old]?.contains(where: { $0 === download }) == true else { return }
            Entries.drop(download, from: &entries.byDestination, at: old)
            entries.byDestination[destination, default: []].append(download)
        }
    }
}

extension DownloadQueue.Entries {
    /// The download of `url` that has not ended, if there is one.
    func live(_ url: String) -> Download? { byURL[url]?.first { !$0.state.isFinal } }

    /// The downloads, those forgotten but not yet swept out excepted.
    var listed: [Download] { forgotten.isEmpty ? downloads : downloads.filter { !forgotten.contains(ObjectIdentifier($0)) } }

    /// Without `keepsEndedDownloads`: `download` has ended and every handler has heard it.
    /// It leaves the indexes now, its destination stays claimed, and it leaves `downloads`
    /// with the next sweep, which takes every forgotten one at once (one at a time would move
    /// the rest of a long list each time): after `sweep` of them, or a quarter of the list
    /// (a sweep reads all of it), or when the queue is idle.
    mutating func forget(_ download: Download) {
        let key = ObjectIdentifier(download)
        guard !forgotten.contains(key), byURL[download.urlWithoutCredentials]?.contains(where: { $0 === download }) == true else { return }
        endedClaims[download.destination] = (download.urlWithoutCredentials, key)
        Self.drop(download, from: &byURL, at: download.urlWithoutCredentials)
        Self.drop(download, from: &byDestination, at: download.destination)
        forgotten.insert(key)
        // Also once nothing is left to run (which is cheap to tell then: the scan stops at the
        // first download queued), so that an idle queue holds none of them.
        guard forgotten.count >= max(Self.sweep, downloads.count / 4) || isIdle else { return }
        downloads.removeAll { forgotten.contains(ObjectIdentifier($0)) }
        forgotten = []
        next = 0
    }

    /// Forgotten downloads that make a sweep, at least.
    static let sweep = 64

    /// Frees the destination an ended, forgotten `download` claimed (`remove`), unless a later
    /// download of its URL saved there since (`download` is then stale).
    mutating func unclaim(_ download: Download) {
        guard let claim = endedClaims[download.destination], claim.owner == ObjectIdentifier(download),
            claim.url == download.urlWithoutCredentials
        else { return }
        endedClaims[download.destination] = nil
    }

    /// Appends `download` and files it under its URL and destination.
    mutating func insert(_ download: Download) {
        downloads.append(download)
        byURL[download.urlWithoutCredentials, default: []].append(download)
        byDestination[download.destination, default: []].append(download)
    }

    /// Takes `download` out of the list and the indexes (its claim too, wherever it is filed).
    mutating func delete(_ download: Download) {
        guard let index = downloads.firstIndex(where: { $0 === download }) else { return }
        downloads.remove(at: index)
        forgotten.remove(ObjectIdentifier(download))
        next = 0
        Self.drop(download, from: &byURL, at: download.urlWithoutCredentials)
        // Filed under its destination, unless a server's name is being given to it right now.
        let filed =
            byDestination[download.destination]?.contains { $0 === download } == true
            ? download.destination : byDestination.first { $0.value.contains { $0 === download } }?.key
        if let filed { Self.drop(download, from: &byDestination, at: filed) }
    }

    fileprivate static func drop(_ download: Download, from index: inout [String: [Download]], at key: String) {
        index[key]?.removeAll { $0 === download }
        if index[key]?.isEmpty == true { index[key] = nil }
    }
}

extension DownloadQueue.Entries {
    /// Whether this call is to pump (none is pumping); else the one pumping looks once more.
    mutating func beginPump() -> Bool {
        guard !pumping else {
            pumpAgain = true
            return false
        }
        pumping = true
        return true
    }

    /// Whether to look once more (a pump was asked for meanwhile); else pumping ends.
    mutating func endPump() -> Bool {
        if pumpAgain {
            pumpAgain = false
            return true
        }
        pumping = false
        return false
    }

    /// The queued downloads to start now, oldest first, while fewer than `maximumActive` hold
    /// a slot; they count as launched from here on.
    mutating func startable(maximumActive: Int) -> [Download] {
        var starting: [Download] = []
        var index = next
        // `next` moves past what is settled for now: ended, launched or paused.
        var settled = true
        while index < downloads.count && launched.count - finishing.count < maximumActive {
            let download = downloads[index]
            let key = ObjectIdentifier(download)
            index += 1
            looked += 1
            if launched.contains(key) {
                if settled { next = index }
                continue
            }
            switch download.state {
            case .queued:
                launched.insert(key)
                starting.append(download)
            case .paused, .completed, .failed, .cancelled:
                break
            default:
                // Running but not launched by this queue (`run` called directly): looked at again.
                settled = false
            }
            if settled { next = index }
        }
        return starting
    }
}
