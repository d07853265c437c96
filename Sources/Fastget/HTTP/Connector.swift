/// Opens connections to an origin: resolves the host, tries every address (IPv6 and IPv4) until
/// one connects, applies timeouts, and adds TLS for `https`.
package final class Connector: Sendable {
    /// Connections opened, and of the TLS ones how many resumed an earlier session (each
    /// download counts its own: a session's connector serves several).
    package struct Statistics: Sendable, Equatable {
        package var connections = 0
        package var fullHandshakes = 0
        package var resumedHandshakes = 0
    }

    package let connectTimeout: Double
    package let ioTimeout: Double
    private let caFile: String?
    private let verifyPeer: Bool
    /// Created on first use: loading a trust store costs milliseconds that plain HTTP should not pay.
    private let tlsContext = Locked<TLSContext?>(nil)

    private let proxies: ProxySettings
    /// Only addresses of this family (`AF_INET`, `AF_INET6`); nil: any.
    private let family: Int32?
    /// `"host:port"` → the address to connect to instead of the host's.
    private let overrides: [String: String]

    package init(
        connectTimeout: Double, ioTimeout: Double, caFile: String?, verifyPeer: Bool,
        proxies: ProxySettings = .direct, family: Int32? = nil, overrides: [String: String] = [:]
    ) {
        self.proxies = proxies
        self.family = family
        self.overrides = overrides
        self.connectTimeout = connectTimeout
        self.ioTimeout = ioTimeout
        self.caFile = caFile
        self.verifyPeer = verifyPeer
    }

    package func tls() throws(TLSError) -> TLSContext {
        let result: Result<TLSContext, TLSError> = tlsContext.withLock { context in
            if let context { return .success(context) }
            do throws(TLSError) {
                let created = try TLSContext(caFile: caFile, verifyPeer: verifyPeer)
                context = created
                return .success(created)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A new connection to `url`'s origin, directly or through the proxy `proxies` names for it
    /// (plain HTTP in absolute form; HTTPS through a `CONNECT` tunnel). Throws `ResolveError`,
    /// `SystemError` (connect), `TLSError`, or `ProxyError` for a proxy that refuses.
    ///
    /// Name resolution, the TCP connect (over every address), the tunnel and the TLS handshake
    /// share one deadline, `connectTimeout` from now: a peer slow at each step must not get the
    /// timeout once per step, nor a handshake trickling in byte by byte hold it forever.
    ///
    /// `created` learns of each socket as soon as it exists, for a stop to shut it down: the
    /// connect, the tunnel and the handshake then end at once instead of at the deadline.
    ///
    /// `publicOnly` (for a mirror a public server named): only public addresses are connected
    /// to, whatever the host's spelling or its DNS answer, else `InsideAddressError`. Through a
    /// proxy, which resolves the name itself, the name is resolved here too and every address
    /// it has must be public (the proxy's resolver may still answer otherwise).
    package func connect(to url: HTTPURL, publicOnly: Bool = false, created: (Socket) -> Void = { _ in }) throws -> HTTPConnection {
        let deadline = MonotonicClock.seconds() + connectTimeout
        let proxy = try proxies.proxy(for: url)
        if publicOnly, proxy != nil {
            if let spelled = IPAddress(host: url.host), !spelled.isPublic {
                throw InsideAddressError(host: url.host, addresses: [spelled.description])
            }
            let addresses = try Resolver.resolve(host: overrides["\(url.host):\(url.port)"] ?? url.host, port: url.port, deadline: deadline)
            let inside = addresses.filter { $0.ipAddress?.isPublic != true }
            if !inside.isEmpty { throw InsideAddressError(host: url.host, addresses: inside.map(\.description)) }
        }
        let socket: Socket
        let address: SocketAddress
        do {
            (socket, address) = try open(proxy ?? url, publicOnly: publicOnly && proxy == nil, deadline: deadline, created: created)
            if url.scheme == .https, let proxy { try tunnel(socket, to: url, through: proxy, deadline: deadline) }
        } catch {
            // The hop that failed is the proxy: the origin was never reached.
            guard let proxy else { throw error }
            throw ProxyError.connecting(to: proxy, error)
        }
        let stream: any ByteStream
        if url.scheme == .https {
            let tlsStream = try TLSStream(
                socket: socket, context: try tls(), host: url.host,
                hostIsIPAddress: url.hostIsIPAddress, port: url.port, deadline: deadline)
            stream = tlsStream
        } else {
            stream = socket
        }
        socket.makeBlocking(readTimeout: ioTimeout, writeTimeout: ioTimeout)
        let viaProxy = proxy != nil && url.scheme == .http
        return HTTPConnection(
            stream: stream, origin: url.origin, peer: proxy == nil ? address.ipAddress : nil, proxy: viaProxy ? proxy : nil,
            publicOnly: publicOnly,
            proxyAuthorization: viaProxy ? proxy.flatMap(ProxySettings.authorization) : nil)
    }

    /// A TCP connection to `url`'s host, trying every address it resolves to by `deadline`.
    /// While other addresses remain, an attempt gets half the time left: one address that
    /// drops every packet (a broken IPv6 route) must not use it all.
    private func open(_ url: HTTPURL, publicOnly: Bool, deadline: Double, created: (Socket) -> Void) throws -> (Socket, SocketAddress) {
        var addresses = try Resolver.resolve(host: overrides["\(url.host):\(url.port)"] ?? url.host, port: url.port, deadline: deadline)
        if let family {
            addresses = addresses.filter { $0.family == family }
            // As the resolver says of a name without an address (EAI_NODATA).
            if addresses.isEmpty { throw ResolveError(host: url.host, code: -5) }
        }
        if publicOnly {
            // The addresses themselves, after DNS: a public name may resolve to 127.0.0.1.
            let inside = addresses.filter { $0.ipAddress?.isPublic != true }
            addresses.removeAll { $0.ipAddress?.isPublic != true }
            if addresses.isEmpty { throw InsideAddressError(host: url.host, addresses: inside.map(\.description)) }
        }
        var lastError: any Error = SystemError("connect", errno: Errno.noRouteToHost)
        for (index, address) in addresses.enumerated() {
            let now = MonotonicClock.seconds()
            guard now < deadline else { throw SystemError.timedOut("connect") }
            let attemptDeadline = index == addresses.count - 1 ? deadline : now + (deadline - now) / 2
            do {
                return (try Socket.connect(to: address, deadline: attemptDeadline, created: created), address)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Asks the proxy on `socket` for a tunnel to `url`'s host and port (RFC 9110 §9.3.6).
    private func tunnel(_ socket: Socket, to url: HTTPURL, through proxy: HTTPURL, deadline: Double) throws {
        let hostPort = (url.isIPv6Literal ? "[\(url.host)]" : url.host) + ":\(url.port)"
        var head = "CONNECT \(hostPort) HTTP/1.1\r\nHost: \(hostPort)\r\n"
        if let authorization = ProxySettings.authorization(proxy) { head += "Proxy-Authorization: \(authorization)\r\n" }
        head += "\r\n"
        try Array(head.utf8).withUnsafeBytes { try socket.write($0, deadline: deadline) }
        // Read the answer a byte at a time: nothing after its head may be consumed, the TLS
        // handshake starts right there.
        var parser = HeadParser()
        var byte: UInt8 = 0
        while true {
            let count = try withUnsafeMutableBytes(of: &byte) { try socket.read(into: $0, deadline: deadline) }
            guard count == 1 else { throw TransferError.closedInHead }
            guard let (answer, _) = try withUnsafeBytes(of: &byte, { try parser.feed($0) }) else { continue }
            switch answer.status {
            case 200...299:
                return
            case 407:
                throw ProxyError.wantsCredentials(proxy)
            default:
                throw ProxyError(
                    .refused, "proxy \(proxy.withoutCredentials.authority) refused to connect to \(url.authority) (\(answer.status) \(answer.reason))"
                )
            }
        }
    }
}
