internal import Glibc

/// Why a URL was rejected.
public struct URLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in a few words.
    public let reason: String
    /// The reason.
    public var description: String { reason }
}

/// An `http` or `https` URL, parsed by hand (RFC 3986) into what a request needs.
///
/// The path and query are kept as given, except that bytes which cannot travel in a request line
/// (space, non-ASCII) are percent-encoded. Control characters are refused.
public struct HTTPURL: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The two schemes fastget speaks.
    public enum Scheme: String, Sendable {
        case http, https
        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// `http` or `https`.
    public let scheme: Scheme
    /// The host: a lower-cased name, an IPv4 literal, or an IPv6 literal without brackets.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int
    /// The request target: path and query, always starting with "/".
    public let target: String
    /// The user name from the URL's userinfo, percent-decoded.
    public let user: String?
    /// The password from the URL's userinfo, percent-decoded.
    public let password: String?

    /// Whether `host` is an IPv6 literal (written in brackets in URLs and `Host`).
    public var isIPv6Literal: Bool { host.utf8.contains(UInt8(ascii: ":")) }

    /// Whether `host` is an IP address rather than a name (no SNI, certificate checked by IP).
    public var hostIsIPAddress: Bool {
        if isIPv6Literal { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// `host[:port]` as sent in the `Host` header: the port only when not the scheme's default.
    public var authority: String {
        let name = isIPv6Literal ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// Scheme, host and port: connections are shared only within one origin.
    public var origin: String { "\(scheme.rawValue)://\(authority)" }

    /// The URL without credentials, for messages and logs.
    public var description: String { origin + target }

    /// The path without the query.
    public var path: Substring {
        target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/"
    }

    /// Parses `text`. A URL without a scheme is taken as `http://` (as curl and wget do).
    public init(_ text: String) throws(URLParseError) {
        let trimmed = text.trimmingASCIISpaces()
        guard !trimmed.isEmpty else { throw URLParseError(reason: "empty URL") }
        if let bad = trimmed.utf8.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw URLParseError(reason: "control character 0x\(String(bad, radix: 16)) in URL")
        }
        var rest = Substring(trimmed)
        if let separator = HTTPURL.schemeSeparator(in: rest) {
            let name = rest[..<separator.lowerBound].lowercased()
            guard let scheme = Scheme(rawValue: name) else {
                throw URLParseError(reason: "unsupported scheme '\(rest[..<separator.lowerBound])' (only http and https)")
            }
            self.scheme = scheme
            rest = rest[separator.upperBound...]
        } else if let colon = rest.firstIndex(of: ":"), HTTPURL.looksLikeScheme(rest[..<colon]),
                  !rest[rest.index(after: colon)...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" }).allSatisfy(\.isASCIIDigit) {
            throw URLParseError(reason: "unsupported scheme '\(rest[..<colon])' (only http and https)")
        } else {
            self.scheme = .http
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]
        if let hash = remainder.firstIndex(of: "#") { remainder = remainder[..<hash] }

        // userinfo: everything before the last "@" of the authority.
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            user = String(decoding: percentDecoded(parts[0]), as: UTF8.self)
            password = parts.count > 1 ? String(decoding: percentDecoded(parts[1]), as: UTF8.self) : nil
        } else {
            user = nil
            password = nil
        }

        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw URLParseError(reason: "unterminated IPv6 address in URL")
            }
            let literal = String(authority[authority.index(after: authority.startIndex)..<close])
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else {
                throw URLParseError(reason: "invalid IPv6 address '\(literal)'")
            }
            host = literal.lowercased()
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw URLParseError(reason: "unexpected text after IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            let colon = authority.firstIndex(of: ":")
            let name = authority[..<(colon ?? authority.endIndex)]
            if let colon { portText = authority[authority.index(after: colon)...] }
            guard !name.isEmpty else { throw URLParseError(reason: "missing host name in URL") }
            guard name.utf8.allSatisfy(HTTPURL.isHostByte) else {
                throw URLParseError(reason: "invalid character in host name '\(name)'")
            }
            host = name.lowercased()
        }

        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText), (1...65535).contains(port) else {
                throw URLParseError(reason: "invalid port '\(portText)'")
            }
            self.port = port
        } else {
            port = scheme.defaultPort
        }
        target = HTTPURL.requestTarget(remainder)
    }

    private init(scheme: Scheme, host: String, port: Int, target: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
        user = nil
        password = nil
    }

    /// Resolves a `Location` value against this URL (RFC 3986 §5.2). Credentials are not carried.
    public func resolving(_ reference: String) throws(URLParseError) -> HTTPURL {
        let reference = reference.trimmingASCIISpaces()
        if HTTPURL.schemeSeparator(in: Substring(reference)) != nil {
            return try HTTPURL(reference)
        }
        if reference.hasPrefix("//") { return try HTTPURL("\(scheme.rawValue):\(reference)") }
        if let bad = reference.utf8.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw URLParseError(reason: "control character 0x\(String(bad, radix: 16)) in Location")
        }
        var relative = Substring(reference)
        if let hash = relative.firstIndex(of: "#") { relative = relative[..<hash] }
        let newTarget: String
        if relative.isEmpty {
            newTarget = target
        } else if relative.hasPrefix("/") {
            newTarget = HTTPURL.removingDotSegments(HTTPURL.requestTarget(relative))
        } else if relative.hasPrefix("?") {
            newTarget = String(path) + HTTPURL.requestTarget(relative).dropFirst()
        } else {
            let basePath = path
            let directory = basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]
            newTarget = HTTPURL.removingDotSegments(HTTPURL.requestTarget(directory + relative))
        }
        return HTTPURL(scheme: scheme, host: host, port: port, target: newTarget)
    }

    /// The same URL without user name and password.
    public var withoutCredentials: HTTPURL { HTTPURL(scheme: scheme, host: host, port: port, target: target) }

    // MARK: - Pieces

    /// The range of "://" when what precedes it is a scheme name.
    private static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        guard let colon = text.firstIndex(of: ":"), looksLikeScheme(text[..<colon]) else { return nil }
        let after = text[colon...]
        guard after.hasPrefix("://") else { return nil }
        return colon..<text.index(colon, offsetBy: 3)
    }

    private static func looksLikeScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Path and query as given, with "/" in front and unsendable bytes percent-encoded.
    private static func requestTarget(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 1)
        if text.first != "/" { bytes.append(UInt8(ascii: "/")) }
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if byte <= 0x20 || byte >= 0x7F {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 on the path part of a target; the query is left alone.
    static func removingDotSegments(_ target: String) -> String {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0]
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        var result = "/" + output.joined(separator: "/")
        if parts.count > 1 { result += "?" + parts[1] }
        return result
    }
}

/// Decodes `%XX` escapes; a `%` not followed by two hex digits is kept as is.
func percentDecoded(_ text: some StringProtocol) -> [UInt8] {
    let bytes = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
           let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
            output.append(high << 4 | low)
            index += 3
        } else {
            output.append(bytes[index])
            index += 1
        }
    }
    return output
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> String {
        let utf8 = Array(self.utf8)
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
