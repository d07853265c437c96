import Fastget
import Foundation
import Glibc
import Synchronization

/// A request as the test server received it.
public struct RecordedRequest: Sendable {
    public let method: String
    public let target: String
    /// Header fields in order, names as sent.
    public let fields: [(name: String, value: String)]
    /// The head exactly as received.
    public let raw: String
    /// Which connection carried it: 0 for the first the server accepted, then 1, 2, …
    public let connection: Int

    /// The first value of a field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// How the test server answers one request.
public enum TestResponse: Sendable {
    /// Serve a file, with ranges and the misbehaviour its settings ask for.
    case file(TestFile)
    case redirect(status: Int, location: String)
    case status(Int, body: String = "", fields: [(name: String, value: String)] = [])
    /// Send these bytes, then close.
    case raw([UInt8])
    /// Send nothing until the server stops or the client goes away.
    case hang
}

/// Cuts ranged responses short: the first `times` of them close after `afterBytes` body bytes.
public final class DropPlan: Sendable {
    public let afterBytes: Int
    private let remaining: Atomic<Int>

    public init(afterBytes: Int, times: Int = 1) {
        self.afterBytes = afterBytes
        remaining = Atomic(times)
    }

    func take() -> Bool {
        while true {
            let left = remaining.load(ordering: .relaxed)
            if left <= 0 { return false }
            if remaining.compareExchange(expected: left, desired: left - 1, ordering: .relaxed).exchanged { return true }
        }
    }
}

/// A file served by the test server, and how to misbehave while serving it.
public struct TestFile: Sendable {
    public enum Framing: Sendable {
        case contentLength
        case chunked(chunkSize: Int)
        /// No length: the body ends when the connection closes.
        case untilClose
    }

    public var bytes: [UInt8]
    public var etag: String? = "\"fastget-test-1\""
    public var lastModified: String? = "Sat, 21 Nov 2026 10:00:00 GMT"
    /// Answer `Range` with 206 (false: always 200 with the whole body, like `python -m http.server`).
    public var honorsRange = true
    /// Send `Accept-Ranges: bytes`.
    public var advertisesRanges = true
    /// Answer HEAD (false: 405).
    public var allowsHead = true
    public var framing: Framing = .contentLength
    /// Close ranged responses early, per the plan.
    public var drop: DropPlan?
    /// Added to both ends of every Content-Range sent (a lying server).
    public var contentRangeShift: Int64 = 0
    /// Keep connections open between requests.
    public var keepAlive = true

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// An in-process HTTP/1.1 server on 127.0.0.1 and a free port, for tests and Bench. It records
/// every request and answers through `handler`, which decides per request how to (mis)behave.
public final class TestServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let handler: @Sendable (RecordedRequest) -> TestResponse
    private let recorded = Mutex<[RecordedRequest]>([])
    private let connections = Mutex<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)
    private let acceptThread = Mutex<PosixThread?>(nil)
    private let accepted = Atomic<Int>(0)

    /// The address the server listens on: "127.0.0.1" or "::1".
    public let address: String

    /// - Parameter ipv6: listen on `[::1]` instead of 127.0.0.1.
    public init(ipv6: Bool = false, handler: @escaping @Sendable (RecordedRequest) -> TestResponse) throws {
        self.handler = handler
        address = ipv6 ? "::1" : "127.0.0.1"
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw SystemError("bind/listen")
        }
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        port = Int(UInt16(bigEndian: withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 2, as: UInt16.self) }))
        let thread = try PosixThread { [self] in acceptLoop() }
        acceptThread.withLock { $0 = thread }
    }

    /// Serves one file at every path.
    public convenience init(file: TestFile) throws {
        try self.init { _ in .file(file) }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`) + `path`.
    public func url(_ path: String = "/file.bin") -> String {
        address.contains(":") ? "http://[\(address)]:\(port)\(path)" : "http://\(address):\(port)\(path)"
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// Stops accepting, closes every connection, and waits for the accept loop.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        connections.withLock { for fd in $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        acceptThread.withLock { $0?.join(); $0 = nil }
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .acquiring) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            connections.withLock { _ = $0.insert(client) }
            if stopped.load(ordering: .acquiring) { shutdown(client, Int32(SHUT_RDWR)) }
            let number = accepted.wrappingAdd(1, ordering: .relaxed).oldValue
            _ = try? PosixThread { [self] in
                serve(client, number: number)
                connections.withLock { _ = $0.remove(client) }
                close(client)
            }
        }
    }

    /// How many connections the server has accepted.
    public var connectionCount: Int { accepted.load(ordering: .relaxed) }

    private func serve(_ fd: Int32, number: Int) {
        var pending: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.load(ordering: .acquiring) {
            // Read one request head.
            var headEnd: Int?
            while headEnd == nil {
                if let end = TestServer.findHeadEnd(pending) { headEnd = end; break }
                guard pending.count < 64 * 1024 else { return }
                let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                pending += scratch[0..<count]
            }
            let headBytes = Array(pending[0..<headEnd!])
            pending.removeFirst(headEnd!)
            guard let request = TestServer.parse(headBytes, connection: number) else { return }
            recorded.withLock { $0.append(request) }
            guard respond(to: request, on: fd) else { return }
        }
    }

    /// Answers; returns whether the connection stays open.
    private func respond(to request: RecordedRequest, on fd: Int32) -> Bool {
        switch handler(request) {
        case .redirect(let status, let location):
            send(fd, "HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
            return true
        case .status(let status, let body, let fields):
            var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n"
            for field in fields { head += "\(field.name): \(field.value)\r\n" }
            send(fd, head + "\r\n" + (request.method == "HEAD" ? "" : body))
            return true
        case .raw(let bytes):
            send(fd, bytes)
            return false
        case .hang:
            var byte: UInt8 = 0
            while !stopped.load(ordering: .acquiring) && recv(fd, &byte, 1, 0) > 0 {}
            return false
        case .file(let file):
            return serveFile(file, request, fd)
        }
    }

    private func serveFile(_ file: TestFile, _ request: RecordedRequest, _ fd: Int32) -> Bool {
        let total = Int64(file.bytes.count)
        var head = ""
        var fields: [String] = []
        if let etag = file.etag { fields.append("ETag: \(etag)") }
        if let lastModified = file.lastModified { fields.append("Last-Modified: \(lastModified)") }
        if file.advertisesRanges { fields.append("Accept-Ranges: bytes") }
        if !file.keepAlive { fields.append("Connection: close") }

        if request.method == "HEAD" {
            guard file.allowsHead else {
                send(fd, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return true
            }
            if case .contentLength = file.framing { fields.append("Content-Length: \(total)") }
            send(fd, "HTTP/1.1 200 OK\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n")
            return file.keepAlive
        }
        guard request.method == "GET" else {
            send(fd, "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n")
            return true
        }
        var body = 0..<Int(total)
        var ranged = false
        if file.honorsRange, let value = request.header("Range"), let range = TestServer.parseRange(value, total: total) {
            guard let range else {
                send(fd, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(total)\r\nContent-Length: 0\r\n\r\n")
                return true
            }
            body = range
            ranged = true
            let first = Int64(range.lowerBound) + file.contentRangeShift
            let last = Int64(range.upperBound - 1) + file.contentRangeShift
            fields.append("Content-Range: bytes \(first)-\(last)/\(total)")
        }
        head = ranged ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n"
        var cutAt: Int?
        if ranged, let drop = file.drop, drop.take() { cutAt = drop.afterBytes }
        switch file.framing {
        case .contentLength:
            fields.append("Content-Length: \(body.count)")
            send(fd, head + fields.map { $0 + "\r\n" }.joined() + "\r\n")
            let end = cutAt.map { min(body.lowerBound + $0, body.upperBound) } ?? body.upperBound
            guard sendBody(fd, file.bytes, body.lowerBound..<end) else { return false }
            return cutAt == nil && file.keepAlive
        case .chunked(let size):
            fields.append("Transfer-Encoding: chunked")
            send(fd, head + fields.map { $0 + "\r\n" }.joined() + "\r\n")
            var offset = body.lowerBound
            var first = true
            while offset < body.upperBound {
                let end = min(offset + size, body.upperBound)
                let sizeLine = String(end - offset, radix: 16) + (first ? ";note=first" : "") + "\r\n"
                first = false
                guard send(fd, sizeLine), sendBody(fd, file.bytes, offset..<end), send(fd, "\r\n") else { return false }
                offset = end
                if let cutAt, offset - body.lowerBound >= cutAt { return false }
            }
            send(fd, "0\r\nX-Trailer: done\r\n\r\n")
            return file.keepAlive
        case .untilClose:
            fields.append("Connection: close")
            send(fd, head + fields.map { $0 + "\r\n" }.joined() + "\r\n")
            let end = cutAt.map { min(body.lowerBound + $0, body.upperBound) } ?? body.upperBound
            _ = sendBody(fd, file.bytes, body.lowerBound..<end)
            return false
        }
    }

    // MARK: - Wire helpers

    @discardableResult
    private func send(_ fd: Int32, _ text: String) -> Bool { send(fd, Array(text.utf8)) }

    @discardableResult
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool { sendBody(fd, bytes, 0..<bytes.count) }

    private func sendBody(_ fd: Int32, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, range.upperBound - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    static func findHeadEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    static func parse(_ head: [UInt8], connection: Int) -> RecordedRequest? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return RecordedRequest(method: String(requestLine[0]), target: String(requestLine[1]), fields: fields, raw: text, connection: connection)
    }

    /// `bytes=a-b` or `bytes=a-`: nil for a form we do not serve (answer 200), .some(nil) when
    /// unsatisfiable.
    static func parseRange(_ value: String, total: Int64) -> Range<Int>?? {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]) else { return nil }
        let last = parts[1].isEmpty ? total - 1 : min(Int64(parts[1]) ?? -1, total - 1)
        guard first < total, first <= last else { return .some(nil) }
        return .some(Int(first)..<Int(last + 1))
    }
}
