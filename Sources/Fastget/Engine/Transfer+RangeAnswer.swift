/// What a ranged answer must be before a byte of it is written, and what it says about the file.
extension Transfer {
    /// A body in a content coding we did not ask for (we send `Accept-Encoding: identity`) is
    /// saved as sent, never decoded: Apache with `AddEncoding gzip .gz` labels a `.tar.gz` that
    /// way, and the file the user wants is those bytes (curl and wget save them too). Byte
    /// ranges are over the encoded bytes as well (RFC 9110 §14.1.2), so segments still tile the
    /// file. Says so once per transfer.
    func noticeEncoding(_ head: ResponseHead) {
        let codings = head.tokens("content-encoding").filter { $0 != "identity" }
        guard !codings.isEmpty, !encodingNoticed.exchange(true, ordering: .relaxed) else { return }
        post(.notice("server sent Content-Encoding \(codings.joined(separator: ", ")); saving the bytes as sent"))
    }

    /// A ranged answer is used only if it is a 206 whose Content-Range is exactly the request.
    /// From a mirror (`source` past the first), an answer that says the file changed or ranges
    /// stopped working throws `SourceRejected` instead: that mirror goes, the others carry on.
    func checkRange(_ head: ResponseHead, for range: ByteRange, url: HTTPURL, connection: HTTPConnection, source: Source) throws {
        let validator = source.validator
        let mirror = source.index > 0
        guard head.status == 206 else {
            connection.shutdown()
            if head.status == 200, let validator, !validator.matches(head) {
                // If-Range answered with the whole body of another version: the file is no
                // longer the one whose bytes are on disk. (A 200 that still carries our
                // validator is a server ignoring Range, handled below.)
                // (Without If-Range, only a conflicting validator fails `matches`.)
                let reason = validator.guardDescription.map { "If-Range \($0) answered 200" } ?? validator.conflict(with: head) ?? ""
                let error = FastgetError(.protocolViolation, "the file changed on the server (\(reason))")
                if mirror { throw SourceRejected(reason: error.message) }
                control.failBecauseChanged(error)
                throw error
            }
            if (200...299).contains(head.status) && !FastgetError.isNoContent(head.status) {
                // Not one byte of this answer is written; the download falls back to one stream.
                let error = FastgetError(.protocolViolation, "server ignored the byte range (asked \(range.headerValue), got \(head.status))")
                if mirror { throw SourceRejected(reason: error.message) }
                control.failBecauseRangesLost(error)
                throw error
            }
            if head.status == 416, let range = try? head.contentRange(), let complete = range.completeLength {
                try fileChanged(length: complete, mirror: mirror)
            }
            throw FastgetError.status(head, url: url)
        }
        noticeEncoding(head)
        let contentRange: ContentRange?
        do {
            contentRange = try head.contentRange()
        } catch {
            connection.shutdown()
            throw error
        }
        // A 206 naming another version than the one on disk: bytes of two versions must not mix.
        // Every validator it carries counts, not only the one `If-Range` sent: a server may
        // change a weak ETag and keep Last-Modified (and If-Range cannot carry a weak ETag).
        if let changedFrom = validator?.conflict(with: head) {
            connection.shutdown()
            let error = FastgetError(.protocolViolation, "the file changed on the server (\(changedFrom))")
            if mirror { throw SourceRejected(reason: error.message) }
            control.failBecauseChanged(error)
            throw error
        }
        if let complete = contentRange?.completeLength {
            if complete != resource.length { connection.shutdown() }
            try fileChanged(length: complete, mirror: mirror)
        }
        let expected = ContentRange(first: range.start, last: range.end - 1, completeLength: resource.length)
        guard contentRange == expected else {
            connection.shutdown()
            let got = head.value("content-range").map { "'\($0)'" } ?? "none"
            let message = "server sent Content-Range \(got) for \(range.headerValue) of \(resource.length ?? 0) bytes"
            // A mirror that answers another range is lying or broken: it goes at once.
            if mirror { throw SourceRejected(reason: message) }
            throw FastgetError(.protocolViolation, message)
        }
        if !head.hasTransferEncoding, let length = head.contentLength, length != range.count {
            connection.shutdown()
            let message = "server sent Content-Length \(length) for \(range.headerValue)"
            if mirror { throw SourceRejected(reason: message) }
            throw FastgetError(.protocolViolation, message)
        }
    }

    /// A response gave the file's length as `length`: when that is not the length being
    /// fetched, the file on the server is another one now, and the download starts over; a
    /// mirror with another length is rejected instead.
    private func fileChanged(length: Int64, mirror: Bool) throws {
        guard let expected = resource.length, length != expected else { return }
        let error = FastgetError(.protocolViolation, "the file changed on the server (it is \(length) bytes now, not \(expected))")
        if mirror { throw SourceRejected(reason: "it has \(length) bytes, not \(expected)") }
        control.failBecauseChanged(error)
    }
}
