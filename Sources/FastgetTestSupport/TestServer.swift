import Fastget
import Foundation
import Glibc
import Synchronization

/// An in-process HTTP/1.1 (and HTTPS) server on loopback and a free port, for tests and Bench.
/// It records every request and every response it sent, and answers through `handler`, which
/// decides per request how to (mis)behave.
public final class TestServer: Sendable {
    public struct Configuration: Sendable {
        /// Listen on `[::1]` instead of 127.0.0.1.
        public var ipv6 = false
        /// Speak TLS with this identity.
        public var tls: TestIdentity?
        /// Bytes per second for the connection with the given accept index (0, 1, …); nil for unlimited.
        public var rate: (@Sendable (Int) -> Double?)?
        /// Instead of serving, hold every connection in a TLS handshake that never completes.
        public var stalledHandshake: StalledHandshake?
        /// An emulated round-trip time, seconds (0: none). A new connection waits this long
        /// before its TLS handshake or first read (connection setup), and every response waits
        /// this long before its head goes out (request and answer). The connection's own
        /// thread sleeps: that is the emulation, and it costs the other connections nothing.
        public var latency: Double = 0
        /// Another IPv4 loopback address to listen on than 127.0.0.1 (127.0.0.2: a server that
        /// a test counts as public, `IPAddress.countedPublic`).
        public var ipv4Address = "127.0.0.1"
        /// Bytes per second for all connections together (nil: unlimited): a link that one
        /// connection fills, where more connections cannot help.
        public var linkRate: Double?

        public init(
            ipv6: Bool = false, tls: TestIdentity? = nil, rate: (@Sendable (Int) -> Double?)? = nil,
            stalledHandshake: StalledHandshake? = nil, latency: Double = 0
        ) {
            self.ipv6 = ipv6
            self.tls = tls
            self.rate = rate
            self.stalledHandshake = stalledHandshake
            self.latency = latency
        }
    }

    /// How a connection is held in its TLS handshake (the URL is still `https`).
    public enum StalledHandshake: Sendable {
        /// Read the ClientHello and answer nothing.
        case silent
        /// Answer the ClientHello with the header of a 16 KiB handshake record, then its body
        /// one byte every `interval` seconds: each read gets data in time, the handshake never ends.
        case trickle(interval: Double)
    }

    public let port: Int
    /// The address the server listens on: "127.0.0.1" or "::1".
    public let address: String
    let configuration: Configuration
    /// The link all connections share (`Configuration.linkRate`).
    private let link: SharedPacer?
    private let listener: Int32
    /// After `stop`, a socket bound to the port and not listening: a client still gets
    /// "connection refused", and no server started later (by this test or one running beside
    /// it) is given the same port, which would answer for this one's URLs.
    private let reservation = Atomic<Int32>(-1)
    let handler: @Sendable (RecordedRequest) -> TestResponse
    private let recorded = Locked<[RecordedRequest]>([])
    private let served = Locked<[ServedResponse]>([])
    private let connections = Locked<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)
    private let acceptThread = Locked<PosixThread?>(nil)
    private let accepted = Atomic<Int>(0)

    public init(_ configuration: Configuration = Configuration(), handler: @escaping @Sendable (RecordedRequest) -> TestResponse) throws {
        // TLS writes go through write(2), where MSG_NOSIGNAL cannot be passed: a client that
        // hangs up early must give EPIPE, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        self.handler = handler
        self.configuration = configuration
        link = configuration.linkRate.map(SharedPacer.init)
        let ipv6 = configuration.ipv6
        address = ipv6 ? "::1" : configuration.ipv4Address
        guard let (fd, port) = Self.bound(ipv6: ipv6, ipv4Address: configuration.ipv4Address, port: 0), listen(fd, 256) == 0 else {
            throw SystemError("bind/listen")
        }
        listener = fd
        self.port = Int(port)
        let thread = try PosixThread { [self] in acceptLoop() }
        acceptThread.withLock { $0 = thread }
    }

    /// Listens on 127.0.0.1 (or `[::1]`) with plain HTTP.
    public convenience init(ipv6: Bool, handler: @escaping @Sendable (RecordedRequest) -> TestResponse) throws {
        try self.init(Configuration(ipv6: ipv6), handler: handler)
    }

    /// Serves one file at every path.
    public convenience init(file: TestFile, _ configuration: Configuration = Configuration()) throws {
        try self.init(configuration) { _ in .file(file) }
    }

    deinit {
        stop()
        let fd = reservation.load(ordering: .acquiring)
        if fd >= 0 { close(fd) }
    }

    /// The loopback address `[::1]:port` or `ipv4Address:port`, and its length.
    public static func loopbackAddress(ipv6: Bool, ipv4Address: String = "127.0.0.1", port: UInt16) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            return (storage, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(ipv4Address)
        address.sin_port = port.bigEndian
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        return (storage, socklen_t(MemoryLayout<sockaddr_in>.size))
    }

    /// A TCP socket with SO_REUSEADDR bound to `port` (0: a free one) on the server's loopback
    /// address, and the port it got; nil if it could not be bound.
    static func bound(ipv6: Bool, ipv4Address: String, port: UInt16) -> (Int32, UInt16)? {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var (storage, length) = loopbackAddress(ipv6: ipv6, ipv4Address: ipv4Address, port: port)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1 }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        return (fd, UInt16(bigEndian: withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 2, as: UInt16.self) }))
    }

    /// `http://127.0.0.1:PORT` (or `https://`, or `[::1]`) + `path`.
    public func url(_ path: String = "/file.bin") -> String {
        let scheme = configuration.tls == nil && configuration.stalledHandshake == nil ? "http" : "https"
        let host = address.contains(":") ? "[\(address)]" : address
        return "\(scheme)://\(host):\(port)\(path)"
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// Every response finished so far (file responses only), in completion order.
    public var responses: [ServedResponse] { served.withLock { $0 } }

    /// How many connections the server has accepted.
    public var connectionCount: Int { accepted.load(ordering: .relaxed) }

    /// Waits (bounded) until no connection is open, so that every response of clients that have
    /// gone is recorded. Returns false on timeout.
    @discardableResult
    public func waitUntilIdle(timeout: Double = 5) -> Bool {
        let deadline = monotonicSeconds() + timeout
        while connections.withLock({ !$0.isEmpty }) {
            if monotonicSeconds() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Forgets the requests and responses recorded so far and restarts connection numbering at
    /// 0 (between benchmark runs, when no connection is open).
    public func clearRecords() {
        recorded.withLock { $0.removeAll() }
        served.withLock { $0.removeAll() }
        accepted.store(0, ordering: .relaxed)
    }

    /// Stops accepting, closes every connection, and waits for the accept loop.
    /// Shuts down every open connection, as a server drops idle keep-alive connections.
    public func closeConnections() {
        connections.withLock { for fd in $0 { Glibc.shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        connections.withLock { for fd in $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        acceptThread.withLock {
            $0?.join()
            $0 = nil
        }
        close(listener)
        if let (fd, _) = Self.bound(ipv6: configuration.ipv6, ipv4Address: configuration.ipv4Address, port: UInt16(port)) {
            reservation.store(fd, ordering: .releasing)
        }
    }

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func record(_ response: ServedResponse) { served.withLock { $0.append(response) } }

    private func acceptLoop() {
        while !isStopped {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            connections.withLock { _ = $0.insert(client) }
            if isStopped { shutdown(client, Int32(SHUT_RDWR)) }
            let number = accepted.wrappingAdd(1, ordering: .relaxed).oldValue
            _ = try? PosixThread { [self] in
                if let stall = configuration.stalledHandshake {
                    hold(client, stall)
                } else {
                    waitOneRoundTrip() // connection setup, before the handshake or the first read
                    if let channel = ServerChannel(fd: client, tls: configuration.tls, rate: configuration.rate?(number), link: link) {
                        serve(channel, number: number)
                    }
                }
                connections.withLock { _ = $0.remove(client) }
                close(client)
            }
        }
    }

    /// Sleeps for the configured latency (if any) on the calling connection's thread.
    func waitOneRoundTrip() {
        let latency = configuration.latency
        guard latency > 0, latency.isFinite else { return }
        var pause = timespec(tv_sec: Int(latency), tv_nsec: Int((latency - latency.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    }

    /// Keeps the client in its handshake until it gives up or the server stops.
    private func hold(_ fd: Int32, _ stall: StalledHandshake) {
        var hello = [UInt8](repeating: 0, count: 16 * 1024)
        guard recv(fd, &hello, hello.count, 0) > 0 else { return }
        switch stall {
        case .silent:
            while !isStopped && recv(fd, &hello, hello.count, 0) > 0 {}
        case .trickle(let interval):
            // A TLS 1.2 handshake record announcing 16384 bytes.
            var bytes: [UInt8] = [0x16, 0x03, 0x03, 0x40, 0x00]
            guard send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return }
            var byte: UInt8 = 0x02
            while !isStopped && send(fd, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 {
                usleep(useconds_t(interval * 1e6))
            }
        }
    }

    private func serve(_ channel: ServerChannel, number: Int) {
        var pending: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while !isStopped {
            var headEnd = TestServer.findHeadEnd(pending)
            while headEnd == nil {
                guard pending.count < 64 * 1024 else { return }
                let count = scratch.withUnsafeMutableBytes { channel.read($0) }
                if count <= 0 { return }
                pending += scratch[0..<count]
                headEnd = TestServer.findHeadEnd(pending)
            }
            let headBytes = Array(pending[0..<headEnd!])
            pending.removeFirst(headEnd!)
            guard let request = TestServer.parse(headBytes, connection: number, tlsResumed: channel.resumed) else { return }
            recorded.withLock { $0.append(request) }
            guard respond(to: request, on: channel) else { return }
        }
    }

    static func findHeadEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    static func parse(_ head: [UInt8], connection: Int, tlsResumed: Bool = false) -> RecordedRequest? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return RecordedRequest(
            method: String(requestLine[0]), target: String(requestLine[1]), fields: fields, raw: text, connection: connection,
            received: monotonicSeconds(), tlsResumed: tlsResumed)
    }

    /// From the log: how many different targets were asked for, and the most that were in
    /// progress at once (from a target's first request to the end of its last response).
    /// A connection may serve several targets in turn (downloads of one session share them).
    public func mostFilesAtOnce() -> (files: Int, most: Int) {
        let requests = self.requests
        var spans: [String: (start: Double, end: Double)] = [:]
        for request in requests {
            let span = spans[request.target] ?? (request.received, request.received)
            spans[request.target] = (min(span.start, request.received), span.end)
        }
        for response in responses {
            guard let span = spans[response.target] else { continue }
            spans[response.target] = (span.start, max(span.end, response.finished))
        }
        var edges: [(time: Double, change: Int)] = []
        for span in spans.values {
            edges.append((span.start, 1))
            edges.append((span.end, -1))
        }
        // At equal times an end counts before a start.
        edges.sort { $0.time != $1.time ? $0.time < $1.time : $0.change < $1.change }
        var active = 0
        var most = 0
        for edge in edges {
            active += edge.change
            most = max(most, active)
        }
        return (spans.count, most)
    }
}
