internal import Glibc

/// One socket address returned by the resolver.
package struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }
    /// The families, as `family` gives them.
    package static let ipv4 = AF_INET
    package static let ipv6 = AF_INET6

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

    /// The address without its port; nil for a family other than IPv4 and IPv6.
    package var ipAddress: IPAddress? {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                return .v4(UInt32(bigEndian: raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: UInt32.self)))
            case AF_INET6:
                let start = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                return .v6(Array(raw[start..<start + 16]))
            default:
                return nil
            }
        }
    }

    /// Whether `text` is an IPv4 address in dotted-decimal form ("192.0.2.1").
    /// The corresponding C function is `inet_pton` with `AF_INET`.
    package static func isIPv4Literal(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// Whether `text` is an IPv6 address (without brackets: "::1").
    /// The corresponding C function is `inet_pton` with `AF_INET6`.
    package static func isIPv6Literal(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
