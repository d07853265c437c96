
/// Opens connections to an origin: resolves the host, tries every address (IPv6 and IPv4) until
/// one connects, applies timeouts, and adds TLS for `https`.
package final class Connector: Sendable {
    /// Connections opened so far, and of the TLS ones how many resumed an earlier session.
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
    private let counts = Locked(Statistics())

    package var statistics: Statistics { counts.withLock { $0 } }

    package init(connectTimeout: Double, ioTimeout: Double, caFile: String?, verifyPeer: Bool) {
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

    /// A new connection to `url`'s origin. Throws `ResolveError`, `SystemError` (connect) or `TLSError`.
    package func connect(to url: HTTPURL) throws -> HTTPConnection {
        let addresses = try Resolver.resolve(host: url.host, port: url.port)
        var lastError: any Error = SystemError("connect", errno: 113 /* EHOSTUNREACH */)
        for address in addresses {
            let socket: Socket
            do {
                socket = try Socket.connect(to: address, timeout: connectTimeout)
            } catch {
                lastError = error
                continue
            }
            socket.setTimeouts(read: ioTimeout, write: ioTimeout)
            let stream: any ByteStream
            if url.scheme == .https {
                let tlsStream = try TLSStream(socket: socket, context: try tls(), host: url.host,
                                              hostIsIPAddress: url.hostIsIPAddress, port: url.port)
                let resumed = tlsStream.resumedSession
                counts.withLock { resumed ? ($0.resumedHandshakes += 1) : ($0.fullHandshakes += 1) }
                stream = tlsStream
            } else {
                stream = socket
            }
            counts.withLock { $0.connections += 1 }
            return HTTPConnection(stream: stream, origin: url.origin)
        }
        throw lastError
    }
}

/// Idle keep-alive connections, by origin, for the next request of any worker.
package final class ConnectionPool: Sendable {
    private let idle = Locked<[HTTPConnection]>([])
    private let capacity: Int

    package init(capacity: Int = 64) { self.capacity = capacity }

    /// An idle connection to `origin`, if one is parked.
    package func take(origin: String) -> HTTPConnection? {
        idle.withLock { connections in
            guard let index = connections.lastIndex(where: { $0.origin == origin }) else { return nil }
            return connections.remove(at: index)
        }
    }

    /// Parks `connection` if it can carry another request; otherwise drops (closes) it.
    package func park(_ connection: HTTPConnection) {
        guard connection.isReusable else { return }
        idle.withLock { connections in
            if connections.count < capacity { connections.append(connection) }
        }
    }

    /// Closes every idle connection.
    package func removeAll() {
        idle.withLock { $0.removeAll() }
    }
}
