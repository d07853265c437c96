/// One HTTP/1.1 connection: sends request heads, parses response heads, and reads bodies framed
/// by Content-Length, chunked coding or connection close. Used by one thread at a time.
///
/// Body bytes are read straight into the caller's buffer (chunked bodies are de-framed there in
/// place); the connection's own small buffer only holds bytes that arrived with the head.
package final class HTTPConnection: Interruptible, @unchecked Sendable {
    package let stream: any ByteStream
    package let origin: String
    /// Whether the connection was opened to public addresses only (`Connector.connect`'s
    /// `publicOnly`): only such a connection may carry a request that must stay outside.
    package let publicOnly: Bool
    /// The address connected to; nil through a proxy (it connects to the origin itself).
    package let peer: IPAddress?
    /// Requests answered on this connection so far.
    package private(set) var responses = 0

    private let receive: UnsafeMutableRawBufferPointer
    private var bufferedStart = 0
    private var bufferedEnd = 0

    private enum Framing {
        case none
        case length(remaining: Int64)
        case chunked(ChunkedDecoder)
        case untilClose
    }

    private var framing: Framing = .none
    private var bodyReceived: Int64 = 0
    private var bodyExpected: Int64?
    private var keepAlive = false
    private var broken = false

    /// Requests go to a proxy in absolute form (plain HTTP through a proxy), with this
    /// `Proxy-Authorization` when it needs one.
    private let proxy: HTTPURL?
    private var viaProxy: Bool { proxy != nil }
    private let proxyAuthorization: String?
    /// What the last request asked for: a proxy's failure to answer names it.
    private var requested: HTTPURL?

    /// - Parameter proxy: the proxy plain requests go through in absolute form (nil: direct).
    package init(
        stream: any ByteStream, origin: String, peer: IPAddress? = nil, proxy: HTTPURL? = nil, publicOnly: Bool = false,
        proxyAuthorization: String? = nil
    ) {
        self.stream = stream
        self.origin = origin
        self.peer = peer
        self.publicOnly = publicOnly
        self.proxy = proxy
        self.proxyAuthorization = proxyAuthorization
        receive = .allocate(byteCount: 16 * 1024, alignment: 16)
    }

    deinit { receive.deallocate() }

    /// Whether another request may be sent: the last body was read to its end and the server
    /// keeps the connection open.
    package var isReusable: Bool {
        if broken || !keepAlive { return false }
        if case .none = framing { return bufferedStart == bufferedEnd }
        return false
    }

    package func send(_ request: HTTPRequest) throws {
        let bytes = try request.serialized(throughProxy: viaProxy, proxyAuthorization: proxyAuthorization)
        requested = request.url
        do {
            try bytes.withUnsafeBytes { try stream.write($0) }
        } catch {
            broken = true
            throw error
        }
    }

    /// Reads the next final response head (1xx interim responses are skipped) and prepares the
    /// body reader for it. `method` decides whether a body follows (none for HEAD).
    ///
    /// `deadline` (monotonic seconds) bounds the whole head, not just each read: a server that
    /// trickles a byte now and then would otherwise hold the request forever (slowloris).
    package func readHead(method: String, deadline: Double? = nil) throws -> ResponseHead {
        guard let proxy, let requested else { return try readFinalHead(method: method, deadline: deadline) }
        // Through a proxy, it is the hop that did not answer, or that says the origin did not.
        let head: ResponseHead
        do {
            head = try readFinalHead(method: method, deadline: deadline)
        } catch {
            throw ProxyError.exchanging(with: proxy, for: requested, error)
        }
        if head.status == 502 || head.status == 504 {
            broken = true
            throw ProxyError.gatewayFailed(proxy, status: head.status, reason: head.reason, for: requested)
        }
        return head
    }

    private func readFinalHead(method: String, deadline: Double?) throws -> ResponseHead {
        broken = true // until the head is in
        var parser = HeadParser()
        var receivedAny = false
        while true {
            if let deadline, MonotonicClock.seconds() > deadline { throw TransferError.slowHead }
            if bufferedStart == bufferedEnd {
                bufferedStart = 0
                bufferedEnd = try stream.read(into: receive)
                if bufferedEnd == 0 {
                    throw receivedAny ? TransferError.closedInHead : TransferError.closedBeforeResponse(reused: responses > 0)
                }
            }
            receivedAny = true
            let available = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(receive)[bufferedStart..<bufferedEnd])
            guard let (head, consumed) = try parser.feed(available) else {
                bufferedStart = bufferedEnd
                continue
            }
            bufferedStart += consumed
            if head.status >= 100 && head.status < 200 && head.status != 101 {
                parser = HeadParser()
                continue
            }
            // The proxy's own answer, not the origin's: it names the hop that wants credentials.
            if let proxy, head.status == 407 { throw ProxyError.wantsCredentials(proxy) }
            let hasBody = !(method == "HEAD" || head.status == 204 || head.status == 304)
            if hasBody { try head.checkTransferCoding() }
            responses += 1
            broken = false
            keepAlive = head.allowsKeepAlive
            bodyReceived = 0
            bodyExpected = nil
            if !hasBody {
                framing = .none
            } else if head.hasTransferEncoding {
                // Exactly `chunked` (checked above); it overrides Content-Length (RFC 9112 §6.3),
                // and a server sending both may have its framing read differently by a proxy.
                framing = .chunked(ChunkedDecoder())
                if head.contentLength != nil { keepAlive = false }
            } else if let length = head.contentLength {
                bodyExpected = length
                framing = length == 0 ? .none : .length(remaining: length)
            } else {
                framing = .untilClose
                keepAlive = false
                stream.requireAnnouncedEnd()
            }
            return head
        }
    }

    /// Reads body bytes into `buffer`; returns 0 once the body has ended.
    /// Throws `TransferError.truncatedBody` when the connection ends before the body does.
    ///
    /// `deadline` (monotonic seconds) bounds the reads that bring framing but no data (chunk
    /// headers, the last chunk, trailers), which could otherwise trickle in forever; past it the
    /// call throws `TransferError.slowBody`. Each read is bounded by the I/O timeout anyway.
    package func readBody(into buffer: UnsafeMutableRawBufferPointer, deadline: Double? = nil) throws -> Int {
        precondition(buffer.count > 0)
        switch framing {
        case .none:
            return 0
        case .length(let remaining):
            let want = Int(min(Int64(buffer.count), remaining))
            let count = try readRaw(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            if count == 0 {
                broken = true
                throw TransferError.truncatedBody(received: bodyReceived, expected: bodyExpected)
            }
            bodyReceived += Int64(count)
            framing = remaining == Int64(count) ? .none : .length(remaining: remaining - Int64(count))
            return count
        case .untilClose:
            let count: Int
            do {
                count = try readRaw(into: buffer)
            } catch let error as TLSError where error.kind == .truncated {
                throw TransferError.unannouncedClose(received: bodyReceived)
            }
            bodyReceived += Int64(count)
            if count == 0 { framing = .none }
            return count
        case .chunked(var decoder):
            while true {
                let fromBuffer = bufferedStart < bufferedEnd
                let raw: UnsafeRawBufferPointer
                if fromBuffer {
                    let take = min(bufferedEnd - bufferedStart, buffer.count)
                    raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(receive)[bufferedStart..<(bufferedStart + take)])
                } else {
                    if let deadline, MonotonicClock.seconds() > deadline {
                        broken = true
                        throw TransferError.slowBody
                    }
                    let count = try stream.read(into: buffer)
                    if count == 0 {
                        broken = true
                        throw TransferError.truncatedBody(received: bodyReceived, expected: nil)
                    }
                    raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
                }
                let (consumed, produced) = try decoder.decode(raw, into: buffer.baseAddress!)
                if fromBuffer {
                    bufferedStart += consumed
                } else if consumed < raw.count {
                    // Bytes after the last chunk: with no pipelining there is nothing they could be.
                    keepAlive = false
                }
                bodyReceived += Int64(produced)
                if decoder.isDone {
                    framing = .none
                    return produced
                }
                framing = .chunked(decoder)
                if produced > 0 { return produced }
            }
        }
    }

    /// The socket of a plain connection whose next body bytes may be moved with `splice`: the
    /// body has a Content-Length and none of its bytes sit in this connection's buffer.
    package var spliceableSocket: Socket? {
        guard case .length = framing, bufferedStart == bufferedEnd else { return nil }
        return stream as? Socket
    }

    /// Accounts for `count` body bytes taken from the socket directly (see `spliceableSocket`).
    package func consumedSplicedBody(_ count: Int) {
        guard case .length(let remaining) = framing else { return }
        bodyReceived += Int64(count)
        framing = remaining <= Int64(count) ? .none : .length(remaining: remaining - Int64(count))
    }

    /// Marks the connection unusable after a failure outside `readBody`.
    package func invalidate() { broken = true }

    /// Called once the caller has every body byte it wanted: whether the body ended exactly
    /// there. A close-delimited body is abandoned (and the connection with it), and so is a
    /// chunked one whose end has not arrived by `deadline` (monotonic seconds): its data is all
    /// in, and a server trickling the last chunk or trailers must not hold the worker.
    package func finishBody(scratch: UnsafeMutableRawBufferPointer, deadline: Double) throws -> Bool {
        switch framing {
        case .none:
            return true
        case .untilClose:
            framing = .none
            keepAlive = false
            return true
        case .length:
            return false
        case .chunked:
            do {
                return try readBody(into: scratch, deadline: deadline) == 0
            } catch TransferError.slowBody {
                return false
            }
        }
    }

    /// Reads and drops the rest of a small body so the connection can be reused; gives up
    /// (leaving it unusable) past `limit` bytes or past `deadline` (monotonic seconds), since
    /// a body that trickles in could otherwise hold the request forever.
    package func discardBody(limit: Int = 64 * 1024, deadline: Double) {
        var dropped = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { scratch.deallocate() }
        while dropped <= limit && MonotonicClock.seconds() <= deadline {
            guard let count = try? readBody(into: scratch, deadline: deadline) else { broken = true; return }
            if count == 0 { return }
            dropped += count
        }
        broken = true
    }

    /// Bytes from the head's leftovers first, then from the stream.
    private func readRaw(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if bufferedStart < bufferedEnd {
            let count = min(bufferedEnd - bufferedStart, buffer.count)
            buffer.baseAddress!.copyMemory(from: receive.baseAddress! + bufferedStart, byteCount: count)
            bufferedStart += count
            return count
        }
        do {
            return try stream.read(into: buffer)
        } catch {
            broken = true
            throw error
        }
    }

    package func shutdown() { stream.shutdown() }
}
