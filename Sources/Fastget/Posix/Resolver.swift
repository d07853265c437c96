internal import Glibc

package enum Resolver {
    /// What a lookup gives: every address, or why there are none.
    package typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[SocketAddress], ResolveError>

    /// Every address for `host:port`, IPv6 and IPv4, in the resolver's order, or
    /// `ResolveError.timeout` once the monotonic clock passes `deadline`.
    ///
    /// `getaddrinfo` has no timeout of its own (a silent name server holds it for the resolver's
    /// timeouts times its attempts), so a name is looked up on a helper thread while the caller
    /// waits with a bound. A caller that gives up leaves the thread to finish alone: it holds its
    /// own reference to the result box and frees the C resolver's list itself. IP literals are
    /// converted on the calling thread (nothing to wait for). `lookup` is replaceable for tests.
    package static func resolve(
        host: String, port: Int, deadline: Double,
        lookup: @escaping Lookup = Resolver.lookup
    ) throws(ResolveError) -> [SocketAddress] {
        if case .success(let numeric) = addresses(host: host, port: port, flags: AI_NUMERICHOST) { return numeric }
        let pending = PendingLookup()
        do {
            _ = try PosixThread { pending.finish(lookup(host, port)) }
        } catch {
            // No thread to spare: better a lookup without a bound than none.
            return try lookup(host, port).get()
        }
        guard let result = pending.wait(until: deadline) else { throw .timeout(host: host) }
        return try result.get()
    }

    /// A lookup on the calling thread, as long as the resolver takes.
    /// The corresponding C function is `getaddrinfo`.
    package static func lookup(host: String, port: Int) -> Result<[SocketAddress], ResolveError> {
        addresses(host: host, port: port, flags: 0)
    }

    private static func addresses(host: String, port: Int, flags: Int32) -> Result<[SocketAddress], ResolveError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | flags
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0 else { return .failure(ResolveError(host: host, code: result, systemErrno: errno)) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                let length = entry.pointee.ai_addrlen
                withUnsafeMutableBytes(of: &storage) { destination in
                    destination.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
                }
                addresses.append(SocketAddress(storage: storage, length: length))
            }
            cursor = entry.pointee.ai_next
        }
        return .success(addresses)
    }
}

/// One lookup's result, handed from its helper thread to the caller waiting for it. Both hold a
/// reference; whichever lets go last frees it.
private final class PendingLookup: @unchecked Sendable {
    private let monitor = Monitor()
    private var result: Result<[SocketAddress], ResolveError>? // guarded by `monitor`

    func finish(_ result: Result<[SocketAddress], ResolveError>) {
        monitor.locked {
            self.result = result
            monitor.broadcast()
        }
    }

    /// The result, or nil if none came before `deadline` (monotonic seconds).
    func wait(until deadline: Double) -> Result<[SocketAddress], ResolveError>? {
        monitor.locked {
            while result == nil {
                if !monitor.wait(until: deadline) { break }
            }
            return result
        }
    }
}
