import Fastget
import Foundation
import Glibc

/// A small forward proxy on loopback: absolute-form requests for plain HTTP (one request per
/// connection, forwarded with `Connection: close`) and `CONNECT` tunnels for HTTPS. With
/// `credentials` it answers 407 unless `Proxy-Authorization` carries them. It records every
/// request line and whether it was authorised.
public final class TestProxy: @unchecked Sendable {
    public struct Seen: Sendable {
        /// `GET http://127.0.0.1:PORT/f`, `CONNECT 127.0.0.1:PORT`.
        public let requestLine: String
        public let proxyAuthorization: String?
    }

    public let port: Int
    private let listener: Int32
    private let credentials: String?
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var stopped = false

    /// - Parameter credentials: `user:password` the proxy demands, or nil.
    public init(credentials: String? = nil) throws {
        self.credentials = credentials
        signal(SIGPIPE, SIG_IGN)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// `http://[user:password@]127.0.0.1:PORT`.
    public func url(credentials: String? = nil) -> String {
        "http://" + (credentials.map { $0 + "@" } ?? "") + "127.0.0.1:\(port)"
    }

    public var requests: [Seen] { lock.withLock { seen } }

    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let head = readHead(client), let firstLine = head.split(separator: "\r\n").first else { return }
        let lines = head.split(separator: "\r\n").dropFirst()
        let authorization = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        lock.withLock { seen.append(Seen(requestLine: String(firstLine), proxyAuthorization: authorization)) }
        if let credentials, authorization != "Basic " + Data(credentials.utf8).base64EncodedString() {
            send(
                client,
                "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            return
        }
        let parts = firstLine.split(separator: " ")
        guard parts.count == 3 else { return }
        if parts[0] == "CONNECT" {
            let hostPort = parts[1].split(separator: ":")
            guard hostPort.count == 2, let port = Int(hostPort[1]), let upstream = connectTo(String(hostPort[0]), port) else {
                send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            }
            defer { close(upstream) }
            send(client, "HTTP/1.1 200 Connection established\r\n\r\n")
            relay(client, upstream, bothWays: true)
            return
        }
        // Absolute form: http://host:port/path
        guard let target = URL(string: String(parts[1])), let host = target.host, let upstream = connectTo(host, target.port ?? 80) else {
            send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        }
        defer { close(upstream) }
        let path = target.path.isEmpty ? "/" : target.path + (target.query.map { "?" + $0 } ?? "")
        var forwarded = "\(parts[0]) \(path) HTTP/1.1\r\n"
        for line in lines where !line.lowercased().hasPrefix("proxy-") && !line.lowercased().hasPrefix("connection:") {
            forwarded += line + "\r\n"
        }
        forwarded += "Connection: close\r\n\r\n"
        send(upstream, forwarded)
        relay(client, upstream, bothWays: false)
    }

    /// The request head, read a byte at a time so that nothing after it is consumed.
    private func readHead(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 65536 {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            bytes.append(byte)
            if bytes.count >= 4 && bytes.suffix(4) == [13, 10, 13, 10] { return String(decoding: bytes.dropLast(4), as: UTF8.self) }
        }
        return nil
    }

    private func connectTo(_ host: String, _ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            close(fd)
            return nil
        }
        return fd
    }

    private func send(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Copies bytes between the two sockets until one side closes.
    private func relay(_ client: Int32, _ upstream: Int32, bothWays: Bool) {
        var descriptors = [pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        if bothWays { descriptors.append(pollfd(fd: client, events: Int16(POLLIN), revents: 0)) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !lock.withLock({ stopped }) {
            guard poll(&descriptors, nfds_t(descriptors.count), 200) >= 0 else { return }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let from = descriptors[index].fd
                let to = from == upstream ? client : upstream
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                var offset = 0
                while offset < count {
                    let sent = buffer.withUnsafeBytes { Glibc.send(to, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                    if sent <= 0 { return }
                    offset += sent
                }
            }
        }
    }
}
