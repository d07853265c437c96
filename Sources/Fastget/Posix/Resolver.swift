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

    /// The name does not exist (as opposed to a temporary failure of the resolver).
    package var isNotFound: Bool {
        code == EAI_NONAME || code == EAI_FAIL || code == -5 /* EAI_NODATA */ || code == EAI_SERVICE
    }

    package var description: String {
        if code == EAI_SYSTEM { return SystemError.describe(systemErrno) }
        return String(cString: gai_strerror(code))
    }
}

package enum Resolver {
    /// Every address for `host:port`, IPv6 and IPv4, in the resolver's order.
    /// The corresponding C function is `getaddrinfo`.
    package static func resolve(host: String, port: Int) throws(ResolveError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0 else { throw ResolveError(host: host, code: result, systemErrno: errno) }
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
        return addresses
    }
}
