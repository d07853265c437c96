internal import Glibc

/// One socket address returned by the resolver.
package struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }

    /// The numeric host, for messages ("127.0.0.1", "::1").
    package var description: String {
        var copy = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard result == 0 else { return "?" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A failed name lookup, with the resolver's own code.
package struct ResolveError: Error, Sendable, CustomStringConvertible {
    package let host: String
    package let code: Int32
    package let systemErrno: Int32
    /// No answer came before the deadline (the lookup may still be running on its thread).
    package let timedOut: Bool

    package init(host: String, code: Int32, systemErrno: Int32 = 0, timedOut: Bool = false) {
        self.host = host
        self.code = code
        self.systemErrno = systemErrno
        self.timedOut = timedOut
    }

    /// A lookup given up at its deadline.
    package static func timeout(host: String) -> ResolveError { ResolveError(host: host, code: EAI_AGAIN, timedOut: true) }

    /// The name does not exist (as opposed to a temporary failure of the resolver).
    package var isNotFound: Bool {
        !timedOut && (code == EAI_NONAME || code == EAI_FAIL || code == -5 /* EAI_NODATA */ || code == EAI_SERVICE)
    }

    package var description: String {
        if timedOut { return "no answer within the connect timeout" }
        if code == EAI_SYSTEM { return SystemError.describe(systemErrno) }
        return String(cString: gai_strerror(code))
    }
}

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
    package static func resolve(host: String, port: Int, deadline: Double,
                                lookup: @escaping Lookup = Resolver.lookup) throws(ResolveError) -> [SocketAddress] {
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
