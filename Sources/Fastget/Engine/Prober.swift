/// Learns length, range support, validators and the final URL: `HEAD`, then `GET` with
/// `Range: bytes=0-0` when HEAD is refused (any status but 404 and 410) or inconclusive.
/// Follows redirects.
struct Prober {
    let requester: Requester
    /// Told of every connection the probe is waiting on (nil when none), so that a stop can
    /// shut it down.
    var track: ((any Interruptible)?) -> Void = { _ in }
    /// Connect to public addresses only (a mirror a public server named, and its redirects).
    var publicOnly = false

    func probe(_ start: HTTPURL) throws -> RemoteResource {
        defer { track(nil) }
        var (connection, head, url) = try follow("HEAD", from: start)
        let headUsable = (200...299).contains(head.status) && head.contentLength != nil && !head.isChunked
        if headUsable && head.acceptsByteRanges == true {
            release(connection, length: head.contentLength)
            return resource(url, head, connection, length: head.contentLength, ranges: true)
        }
        // Only "not found" and "gone" are the file's answer whatever the method. Anything else
        // may be about HEAD alone: URLs signed for GET (S3's presigned ones, CDN tokens) answer
        // it 403, some servers 400, 405, 501 or a 5xx. The ranged GET's answer decides.
        if head.status == 404 || head.status == 410 {
            throw FastgetError.status(head, url: url)
        }
        park(connection)
        let headLength = headUsable ? head.contentLength : nil

        (connection, head, url) = try follow("GET", from: start, extra: [("Range", "bytes=0-0")])
        switch head.status {
        case 206:
            guard let range = try head.contentRange(), range.first == 0, range.last == 0 else {
                connection.shutdown()
                throw FastgetError(
                    .protocolViolation,
                    "server answered bytes=0-0 with Content-Range '\(head.value("content-range") ?? "")' (\(url))")
            }
            connection.discardBody(deadline: requester.ioDeadline)
            release(connection, length: range.completeLength)
            guard let complete = range.completeLength else {
                return resource(url, head, connection, length: nil, ranges: false)
            }
            return resource(url, head, connection, length: complete, ranges: true)
        case 416:
            park(connection)
            if isEmptyFile(head) { return resource(url, head, connection, length: 0, ranges: false) }
            throw FastgetError.status(416, reason: head.reason, url: url)
        case 204, 205:
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        case 200...299:
            // The server ignored the range: the body is the whole file; do not read it here.
            connection.shutdown()
            let length = head.isChunked || head.hasTransferEncoding ? headLength : (head.contentLength ?? headLength)
            return resource(url, head, connection, length: length, ranges: false)
        default:
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        }
    }

    /// Whether the file at `start` is unchanged by `conditions` (`If-None-Match`,
    /// `If-Modified-Since`): a 304 to `HEAD`, or to `GET bytes=0-0` when `HEAD` is refused.
    func isUnchanged(_ start: HTTPURL, conditions: [(name: String, value: String)]) throws -> Bool {
        defer { track(nil) }
        var (connection, head, url) = try follow("HEAD", from: start, extra: conditions)
        if head.status == 304 || (200...299).contains(head.status) {
            park(connection)
            return head.status == 304
        }
        if head.status == 404 || head.status == 410 { throw FastgetError.status(head, url: url) }
        park(connection)
        (connection, head, url) = try follow("GET", from: start, extra: conditions + [("Range", "bytes=0-0")])
        guard head.status == 304 || (200...299).contains(head.status) else {
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        }
        // A 200 is the whole file: not read here.
        if head.status == 304 || head.status == 206 { park(connection) } else { connection.shutdown() }
        return head.status == 304
    }

    /// The first request of a fresh download, which does the probe's job and carries the file:
    /// `GET` with `Range: bytes=0-`. A 206 whose `Content-Range` is exactly `0-(L-1)/L` gives
    /// length, range support and validators, and its body is the file from byte 0; a 2xx
    /// without a range but with a Content-Length is the whole file from a server without
    /// ranges. Either answer is returned unread for the transfer. A `416` with `bytes */0` is
    /// an empty file.
    ///
    /// Returns nil for any other answer the HEAD probe may understand better (405, 501, a
    /// `Content-Range` that is not the whole file, an unknown complete length, a body without
    /// a length): the caller closes it and probes as before. Statuses that are errors for any request throw as the probe would.
    func open(_ start: HTTPURL) throws -> (RemoteResource, OpenedResponse?)? {
        defer { track(nil) }
        let sent = MonotonicClock.seconds()
        let (connection, head, url) = try follow("GET", from: start, extra: [("Range", "bytes=0-")])
        let latency = MonotonicClock.seconds() - sent
        switch head.status {
        case 206:
            guard let range = try? head.contentRange(), range.first == 0, let length = range.completeLength, length > 0,
                range.last == length - 1, head.hasTransferEncoding || head.contentLength == nil || head.contentLength == length
            else { break }
            let opened = OpenedResponse(connection: connection, head: head, ranged: true, latency: latency)
            return (resource(url, head, connection, length: length, ranges: true), opened)
        case 416:
            guard isEmptyFile(head) else { break }
            park(connection)
            return (resource(url, head, connection, length: 0, ranges: false), nil)
        case 204, 205:
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        case 405, 501:
            park(connection)
            return nil
        case 200...299:
            // Without a Content-Length, the HEAD probe may still announce the length that
            // tells a stream cut short from a whole one; ask it.
            guard !head.hasTransferEncoding, let length = head.contentLength else { break }
            // A server that says it takes ranges but answered this one whole (a cache filling
            // on a miss does) is still segmented: this answer is the file from byte 0, and a
            // 200 to a later range request falls back to one stream as ever.
            let ranged = head.acceptsByteRanges == true && length > 0
            let opened = OpenedResponse(connection: connection, head: head, ranged: ranged, latency: latency)
            return (resource(url, head, connection, length: length, ranges: ranged), opened)
        default:
            connection.shutdown()
            throw FastgetError.status(head, url: url)
        }
        connection.shutdown()
        return nil
    }

    /// Hands the probe's connection to the transfer only when the file fits in one small segment,
    /// where saving a connect matters most. Otherwise every segment gets a fresh connection:
    /// rate-limiting servers may pace a connection's second request slower than a new one's
    /// (nginx `limit_rate`: 4 MiB took 2.7 s on a reused connection, 1.96 s on a fresh one).
    private func release(_ connection: HTTPConnection, length: Int64?) {
        if let length, length < requester.options.minimumSegmentSize {
            park(connection)
        } else {
            connection.shutdown()
        }
    }

    /// Reads and drops the rest of a small body and parks `connection` for the next request, no
    /// longer registered for this probe's stop: parked, it may serve another download of the
    /// session, which that stop must not reach.
    private func park(_ connection: HTTPConnection) {
        connection.discardBody(deadline: requester.ioDeadline)
        track(nil)
        requester.pool.park(connection)
    }

    /// A 416 with `bytes */0`: the file is empty (there is no byte 0 to send).
    private func isEmptyFile(_ head: ResponseHead) -> Bool {
        guard let range = try? head.contentRange() else { return false }
        return range.first == nil && range.completeLength == 0
    }

    private func resource(_ url: HTTPURL, _ head: ResponseHead, _ connection: HTTPConnection, length: Int64?, ranges: Bool) -> RemoteResource {
        let announced = Checksum.announced(reprDigest: head.values("repr-digest"), digest: head.values("digest"))
        return RemoteResource(
            url: url, length: length, acceptsRanges: ranges, etag: head.etag,
            lastModified: head.lastModified, contentDisposition: head.contentDisposition,
            announcedDigest: announced?.checksum, announcedDigestField: announced?.field,
            announcedMirrors: AnnouncedMirror.announced(in: head.values("link"), base: url, peer: connection.peer))
    }

    /// Sends `method` to `start` and follows 301/302/303/307/308 (at most `DownloadOptions.maximumRedirects`, no loops, never
    /// from https to http). Returns the final response with its connection and URL.
    func follow(_ method: String, from start: HTTPURL, extra: [(name: String, value: String)] = []) throws
        -> (HTTPConnection, ResponseHead, HTTPURL)
    {
        var url = start
        // A loop is a request sent again unchanged: the same URL may come back with the
        // cookie it just set (a cookie gate), and `maximumRedirects` bounds the rest.
        var visited: Set<String> = []
        var hops = 0
        while true {
            var request = requester.request(method, url, extra: extra)
            let cookie = request.fields.last { $0.name.lowercased() == "cookie" }?.value ?? ""
            guard visited.insert(url.description + "\n" + cookie).inserted else {
                throw FastgetError(.protocolViolation, "redirect loop at \(url)")
            }
            request.publicOnly = publicOnly
            let (connection, head) = try requester.send(request, onConnection: track)
            guard [301, 302, 303, 307, 308].contains(head.status), let location = head.location else {
                return (connection, head, url)
            }
            park(connection)
            hops += 1
            let limit = requester.options.maximumRedirects
            guard hops <= limit else {
                throw FastgetError(
                    .protocolViolation, "more than \(limit) redirect\(limit == 1 ? "" : "s"), last to \(url)",
                    remedy: .followMoreRedirects)
            }
            let next: HTTPURL
            do {
                next = try url.resolving(location)
            } catch {
                throw FastgetError(.protocolViolation, "invalid redirect from \(url) to '\(HTTPURL.redactingUserInfo(location))': \(error)")
            }
            if url.scheme == .https && next.scheme == .http {
                throw FastgetError(.protocolViolation, "refusing redirect from https to http (\(next))")
            }
            requester.followed(from: url, to: next)
            url = next
        }
    }
}

/// An answer to the probe's GET whose body has not been read: the file from byte 0, ranged
/// (206, for the worker fetching from byte 0) or whole (2xx, for the single stream).
struct OpenedResponse: Sendable {
    let connection: HTTPConnection
    let head: ResponseHead
    let ranged: Bool
    /// Seconds from sending the request to its answer's head (a new connection's setup included).
    let latency: Double
}
