import Foundation
import Glibc

extension TestServer {
    /// Answers one request; returns whether the connection stays open.
    func respond(to request: RecordedRequest, on channel: ServerChannel) -> Bool {
        let response = handler(request)
        waitOneRoundTrip()
        switch response {
        case .redirect(let status, let location):
            return channel.write("HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
        case .status(let status, let body, let fields):
            var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n"
            for field in fields { head += "\(field.name): \(field.value)\r\n" }
            return channel.write(head + "\r\n" + (request.method == "HEAD" ? "" : body))
        case .raw(let bytes):
            _ = bytes.withUnsafeBytes { channel.write($0) }
            return false
        case .trickle(let bytes, let interval):
            for byte in bytes where !isStopped {
                // As a byte, not a String: one above 0x7F would go out as U+FFFD's three bytes.
                guard [byte].withUnsafeBytes({ channel.write($0) }) else { return false }
                usleep(useconds_t(interval * 1e6))
            }
            return false
        case .trickleAfter(let sent, let trickled, let interval):
            guard sent.withUnsafeBytes({ channel.write($0) }) else { return false }
            for byte in trickled where !isStopped {
                // As a byte, not a String: one above 0x7F would go out as U+FFFD's three bytes.
                guard [byte].withUnsafeBytes({ channel.write($0) }) else { return false }
                usleep(useconds_t(interval * 1e6))
            }
            return false
        case .staged(let head, let rest):
            guard head.withUnsafeBytes({ channel.write($0) }) else { return false }
            _ = rest().withUnsafeBytes { channel.write($0) }
            return false
        case .hang:
            var byte: UInt8 = 0
            while !isStopped && recv(channel.fd, &byte, 1, 0) > 0 {}
            return false
        case .file(let file):
            return serveFile(file, request, channel)
        }
    }

    private func serveFile(_ file: TestFile, _ request: RecordedRequest, _ channel: ServerChannel) -> Bool {
        let total = file.length
        var fields: [String] = []
        if let etag = file.etag { fields.append("ETag: \(etag)") }
        if let lastModified = file.lastModified { fields.append("Last-Modified: \(lastModified)") }
        if file.advertisesRanges { fields.append("Accept-Ranges: bytes") }
        if !file.keepAlive { fields.append("Connection: close") }
        fields += file.extraFields
        func head(_ statusLine: String) -> String { statusLine + "\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" }

        if request.method == "HEAD" {
            guard file.allowsHead else {
                return channel.write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            }
            if case .contentLength = file.framing { fields.append("Content-Length: \(total)") }
            return channel.write(head("HTTP/1.1 200 OK")) && file.keepAlive
        }
        guard request.method == "GET" else {
            return channel.write("HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n")
        }
        var body: Range<Int64> = 0..<total
        var ranged = false
        // If-Range (RFC 9110 §13.1.5): a validator that no longer matches means "send it all".
        let ifRangeMatches = !file.honorsIfRange || (request.header("If-Range").map { $0 == file.etag || $0 == file.lastModified } ?? true)
        if file.honorsRange, ifRangeMatches, let value = request.header("Range"), let range = TestServer.parseRange(value, total: total) {
            guard let range else {
                return channel.write("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(total)\r\nContent-Length: 0\r\n\r\n")
            }
            body = range
            ranged = true
            fields.append(
                "Content-Range: bytes \(range.lowerBound + file.contentRangeShift)-\(range.upperBound - 1 + file.contentRangeShift)/\(total)")
        }
        let status = ranged ? 206 : 200
        let statusLine = ranged ? "HTTP/1.1 206 Partial Content" : "HTTP/1.1 200 OK"
        var cutAt: Int64?
        if ranged, let drop = file.drop, drop.take() { cutAt = Int64(drop.afterBytes) }
        let started = monotonicSeconds()
        var sent: Int64 = 0
        defer {
            record(
                ServedResponse(
                    connection: request.connection, method: request.method, target: request.target, status: status,
                    bodyBytes: sent, started: started, finished: monotonicSeconds(), lastWrite: max(started, channel.lastWrite)))
        }
        let source = BodySource(file.content)
        switch file.framing {
        case .contentLength:
            fields.append("Content-Length: \(body.count)")
            guard channel.write(head(statusLine)) else { return false }
            let end = cutAt.map { min(body.lowerBound + $0, body.upperBound) } ?? body.upperBound
            sent = source.send(body.lowerBound..<end, on: channel)
            if sent == end - body.lowerBound, !file.excess.isEmpty { _ = file.excess.withUnsafeBytes { channel.write($0) } }
            return sent == end - body.lowerBound && cutAt == nil && file.keepAlive
        case .chunked(let size):
            fields.append("Transfer-Encoding: chunked")
            guard channel.write(head(statusLine)) else { return false }
            guard sendChunks(source, body, size: size, cutAt: cutAt, on: channel, sent: &sent) else { return false }
            return channel.write("0\r\nX-Trailer: done\r\n\r\n") && file.keepAlive
        case .untilClose:
            fields.append("Connection: close")
            guard channel.write(head(statusLine)) else { return false }
            let end = cutAt.map { min(body.lowerBound + $0, body.upperBound) } ?? body.upperBound
            sent = source.send(body.lowerBound..<end, on: channel)
            if sent == end - body.lowerBound, !file.excess.isEmpty { _ = file.excess.withUnsafeBytes { channel.write($0) } }
            // A body cut short ends as a crashed server's would: without close_notify.
            if cutAt == nil && file.closeNotify { channel.sendCloseNotify() }
            return false
        }
    }

    /// `body` in chunks of `size` bytes (the first with a chunk extension), adding to `sent`;
    /// false when the connection is to close: a write failed, or `cutAt` bytes went out.
    private func sendChunks(
        _ source: BodySource, _ body: Range<Int64>, size: Int, cutAt: Int64?, on channel: ServerChannel, sent: inout Int64
    ) -> Bool {
        var offset = body.lowerBound
        var first = true
        while offset < body.upperBound {
            let end = min(offset + Int64(size), body.upperBound)
            let sizeLine = String(end - offset, radix: 16) + (first ? ";note=first" : "") + "\r\n"
            first = false
            guard channel.write(sizeLine) else { return false }
            let piece = source.send(offset..<end, on: channel)
            sent += piece
            guard piece == end - offset, channel.write("\r\n") else { return false }
            offset = end
            if let cutAt, offset - body.lowerBound >= cutAt { return false }
        }
        return true
    }

    /// `bytes=a-b` or `bytes=a-`: nil for a form we do not serve (answer 200), .some(nil) when
    /// unsatisfiable.
    static func parseRange(_ value: String, total: Int64) -> Range<Int64>?? {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]) else { return nil }
        let last = parts[1].isEmpty ? total - 1 : min(Int64(parts[1]) ?? -1, total - 1)
        guard first < total, first <= last else { return .some(nil) }
        return .some(first..<(last + 1))
    }
}

/// Sends byte ranges of a file's content from memory or from disk.
private struct BodySource {
    let content: TestFile.Content

    init(_ content: TestFile.Content) { self.content = content }

    /// Returns the bytes sent.
    func send(_ range: Range<Int64>, on channel: ServerChannel) -> Int64 {
        switch content {
        case .memory(let bytes):
            let sent = bytes.withUnsafeBytes {
                channel.writeCounting(UnsafeRawBufferPointer(rebasing: $0[Int(range.lowerBound)..<Int(range.upperBound)]))
            }
            return Int64(sent)
        case .file(let path, _):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return 0 }
            defer { close(fd) }
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
            defer { scratch.deallocate() }
            return channel.send(file: fd, offset: range.lowerBound, count: range.count64, scratch: scratch)
        }
    }
}

extension Range where Bound == Int64 {
    fileprivate var count64: Int64 { upperBound - lowerBound }
}
