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
        return SocketAddress.isIPv4Literal(host)
    }

    /// `host[:port]` as sent in the `Host` header: the port only when not the scheme's default.
    /// (Made once: every request, pool lookup and route asks for it.)
    public let authority: String

    /// Scheme, host and port: connections are shared only within one origin.
    public let origin: String

    /// `authority` and `origin`, for both initializers.
    private static func names(scheme: Scheme, host: String, port: Int) -> (authority: String, origin: String) {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host // an IPv6 literal
        let authority = port == scheme.defaultPort ? name : "\(name):\(port)"
        return (authority, "\(scheme.rawValue)://\(authority)")
    }

    /// The URL without credentials, for messages and logs.
    public var description: String { origin + target }

    /// The path without the query.
    public var path: Substring {
        target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/"
    }

    /// Parses `text`. A URL without a scheme is taken as `http://` (as curl and wget do).
    ///
    /// A fragment ("#…") is dropped: a client never sends it, and it names nothing on the server.
    /// Delimiters are found among the bytes, not the Characters: a combining mark after "/",
    /// "?", "#" or "@" makes one Character of the two, and that Character is none of them.
    public init(_ text: String) throws(URLParseError) {
        let trimmed = text.trimmingASCIISpaces()
        guard !trimmed.isEmpty else { throw URLParseError(reason: "empty URL") }
        if let bad = trimmed.utf8.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw URLParseError(reason: "control character 0x\(String(bad, radix: 16)) in URL")
        }
        let bytes = Array(trimmed.utf8)
        var rest = bytes[...]
        if let separator = HTTPURL.schemeSeparator(in: rest) {
            let name = string(rest[..<separator.lowerBound])
            guard let scheme = Scheme(rawValue: name.lowercased()) else {
                throw URLParseError(reason: "unsupported scheme '\(name)' (only http and https)")
            }
            self.scheme = scheme
            rest = rest[separator.upperBound...]
        } else if let colon = rest.firstIndex(of: UInt8(ascii: ":")), HTTPURL.looksLikeScheme(rest[..<colon]),
            !rest[(colon + 1)...].prefix(while: { !HTTPURL.endsAuthority($0) }).allSatisfy(HTTPURL.isDigit)
        {
            throw URLParseError(reason: "unsupported scheme '\(string(rest[..<colon]))' (only http and https)")
        } else {
            self.scheme = .http
        }
        let authorityEnd = rest.firstIndex(where: HTTPURL.endsAuthority) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var remainder = rest[authorityEnd...]
        if let hash = remainder.firstIndex(of: UInt8(ascii: "#")) { remainder = remainder[..<hash] }

        // userinfo: everything before the last "@" of the authority.
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            authority = authority[(at + 1)...]
            let colon = userinfo.firstIndex(of: UInt8(ascii: ":"))
            user = String(decoding: percentDecoded(string(userinfo[..<(colon ?? userinfo.endIndex)])), as: UTF8.self)
            password = colon.map { String(decoding: percentDecoded(string(userinfo[($0 + 1)...])), as: UTF8.self) }
        } else {
            user = nil
            password = nil
        }

        var portText: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw URLParseError(reason: "unterminated IPv6 address in URL")
            }
            let literal = string(authority[(authority.startIndex + 1)..<close])
            guard SocketAddress.isIPv6Literal(literal) else {
                throw URLParseError(reason: "invalid IPv6 address '\(literal)'")
            }
            host = literal.lowercased()
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw URLParseError(reason: "unexpected text after IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            let name = authority[..<(colon ?? authority.endIndex)]
            if let colon { portText = authority[(colon + 1)...] }
            guard !name.isEmpty else { throw URLParseError(reason: "missing host name in URL") }
            guard name.allSatisfy(HTTPURL.isHostByte) else {
                throw URLParseError(reason: "invalid character in host name '\(string(name))'")
            }
            host = string(name).lowercased()
        }

        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy(HTTPURL.isDigit), let port = Int(string(portText)), (1...65535).contains(port) else {
                throw URLParseError(reason: "invalid port '\(string(portText))'")
            }
            self.port = port
        } else {
            port = scheme.defaultPort
        }
        target = HTTPURL.requestTarget(remainder)
        (self.authority, origin) = HTTPURL.names(scheme: scheme, host: host, port: port)
    }

    private init(scheme: Scheme, host: String, port: Int, target: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
        user = nil
        password = nil
        (authority, origin) = HTTPURL.names(scheme: scheme, host: host, port: port)
    }

    /// Resolves a `Location` value against this URL (RFC 3986 §5.2). Credentials are not carried;
    /// a fragment is dropped.
    public func resolving(_ reference: String) throws(URLParseError) -> HTTPURL {
        let reference = reference.trimmingASCIISpaces()
        var relative = Array(reference.utf8)[...]
        if HTTPURL.schemeSeparator(in: relative) != nil {
            return try HTTPURL(reference)
        }
        if relative.starts(with: "//".utf8) { return try HTTPURL("\(scheme.rawValue):\(reference)") }
        if let bad = relative.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw URLParseError(reason: "control character 0x\(String(bad, radix: 16)) in Location")
        }
        if let hash = relative.firstIndex(of: UInt8(ascii: "#")) { relative = relative[..<hash] }
        let newTarget: String
        if relative.isEmpty {
            newTarget = target
        } else if relative.first == UInt8(ascii: "/") {
            newTarget = HTTPURL.removingDotSegments(HTTPURL.requestTarget(relative))
        } else if relative.first == UInt8(ascii: "?") {
            newTarget = String(path) + HTTPURL.requestTarget(relative).dropFirst()
        } else {
            let basePath = path
            let directory = basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]
            newTarget = HTTPURL.removingDotSegments(HTTPURL.requestTarget(Array(directory.utf8) + relative))
        }
        return HTTPURL(scheme: scheme, host: host, port: port, target: newTarget)
    }

    /// The same URL without user name and password.
    public var withoutCredentials: HTTPURL {
        user == nil && password == nil ? self : HTTPURL(scheme: scheme, host: host, port: port, target: target)
    }

    // MARK: - Pieces

    /// The range of "://" when what precedes it is a scheme name.
    private static func schemeSeparator(in text: ArraySlice<UInt8>) -> Range<Int>? {
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), looksLikeScheme(text[..<colon]) else { return nil }
        guard text[colon...].starts(with: "://".utf8) else { return nil }
        return colon..<(colon + 3)
    }

    private static func looksLikeScheme(_ text: ArraySlice<UInt8>) -> Bool {
        guard let first = text.first, isLetter(first) else { return false }
        return text.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    /// "/", "?" or "#": where the authority ends.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    /// Path and query as given, with "/" in front and unsendable bytes percent-encoded.
    private static func requestTarget(_ text: some Collection<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count + 1)
        if text.first != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text {
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

/// Bytes cut from a String's UTF-8 at ASCII delimiters: valid UTF-8 again, so nothing is lost.
private func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

extension HTTPURL {
    /// `text` with the query of every `http`/`https` URL in it but `kept` cut to `?…`: a
    /// message may name where a redirect led, whose query can carry a signed token (S3's
    /// `X-Amz-Signature`, a CDN's) that reports and logs must not spread.
    package static func redactingQueries(in text: String, keeping kept: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let first = [index(of: "http://", in: rest), index(of: "https://", in: rest)].compactMap({ $0 }).min() {
            result += rest[..<first]
            let token = rest[first...].prefix { !" \t\n\"'<>()),;".contains($0) }
            if token != kept, let question = token.firstIndex(of: "?") {
                result += token[..<question] + "?…"
            } else {
                result += token
            }
            rest = rest[token.endIndex...]
        }
        return result + rest
    }

    /// URL `text` that failed to parse, for a message: its user info (`USER:PASS@`, or a token
    /// alone) replaced by `***@`. The text never parsed, so it is cut where the parser would
    /// cut it: after `://` (or from the start), up to the first `/`, `?` or `#`, at its last `@`.
    package static func redactingUserInfo(_ text: String) -> String {
        let start = index(of: "://", in: Substring(text)).map { text.index($0, offsetBy: 3) } ?? text.startIndex
        let authorityEnd = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[start..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "***" + text[at...]
    }

    /// `text` with every `target` in it replaced by `replacement`.
    package static func replacing(_ target: String, with replacement: String, in text: String) -> String {
        guard !target.isEmpty else { return text }
        var result = ""
        var rest = Substring(text)
        while let found = index(of: target, in: rest) {
            result += rest[..<found] + replacement
            rest = rest[rest.index(found, offsetBy: target.count)...]
        }
        return result + rest
    }

    /// Where `needle` first starts in `text` (the standard library's search lives in the
    /// string-processing module, which the static build leaves out).
    private static func index(of needle: String, in text: Substring) -> Substring.Index? {
        let first = needle.first!
        var start = text.startIndex
        while let candidate = text[start...].firstIndex(of: first) {
            if text[candidate...].starts(with: needle) { return candidate }
            start = text.index(after: candidate)
        }
        return nil
    }
}
