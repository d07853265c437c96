/// One HTTP cookie (RFC 6265 §5.3): what a server's `Set-Cookie` stored, or a line of a
/// Netscape cookie file. Sent only to a request whose host, path and scheme it matches.
public struct Cookie: Sendable, Equatable, Hashable {
    /// The cookie's name (never empty).
    public var name: String
    /// Its value, as the server gave it.
    public var value: String
    /// The host (`hostOnly`) or domain it belongs to: lower case, without a leading dot.
    public var domain: String
    /// Sent to `domain` itself only (no `Domain` attribute was given); false: to its
    /// subdomains too.
    public var hostOnly: Bool
    /// Sent to this path and the paths below it (`/docs` covers `/docs/a`, not `/docsx`).
    public var path: String
    /// Sent over https only.
    public var secure: Bool
    /// Hidden from scripts in a browser; kept here only to write it back to a cookie file.
    public var httpOnly: Bool
    /// Seconds since the epoch from which it is gone; nil: a session cookie, kept for the run.
    public var expires: Int?

    /// A cookie with these attributes; `domain` is lower-cased and loses a leading dot.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/", secure: Bool = false,
        httpOnly: Bool = false, expires: Int? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = Cookie.canonical(domain)
        self.hostOnly = hostOnly
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
    }

    /// Whether it is gone at `now` (seconds since the epoch).
    public func isExpired(at now: Int) -> Bool { expires.map { $0 <= now } ?? false }

    /// Whether it goes with a request to `url` (RFC 6265 §5.4): its host matches (`domain`
    /// itself, or a subdomain of it unless `hostOnly`), its path matches, and a `secure`
    /// one goes over https only. An expired one matches nothing.
    public func matches(_ url: HTTPURL, now: Int) -> Bool {
        guard !isExpired(at: now), !secure || url.scheme == .https else { return false }
        let host = Cookie.canonical(url.host)
        guard hostOnly ? host == domain : Cookie.domainMatches(host, domain) else { return false }
        return Cookie.pathMatches(String(url.path), path)
    }

    /// Whether `other` takes this one's place when stored: the same name, domain and path.
    func replaces(_ other: Cookie) -> Bool { name == other.name && domain == other.domain && path == other.path }

    /// Whether this one, set by a plain http answer, would replace, delete or overshadow the
    /// `Secure` cookie `other` (RFC 6265bis §5.7 "strict secure"): the same name, one domain
    /// within the other, and this path within `other`'s. A network attacker could otherwise
    /// swap an https session for its own (session fixation).
    func shadows(_ other: Cookie) -> Bool {
        other.secure && !secure && name == other.name
            && (Cookie.domainMatches(domain, other.domain) || Cookie.domainMatches(other.domain, domain))
            && Cookie.pathMatches(path, other.path)
    }

    // Matching is on bytes, never on Characters: a combining mark after "." or "/" makes one
    // Character of the two, which is neither.

    /// RFC 6265 §5.1.3: `host` is `domain`, or ends in `.domain` and is a name, not an address
    /// (`10.0.0.1` does not belong to `0.0.1`).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        let (host, domain) = (Array(host.utf8), Array(domain.utf8))
        if host == domain { return true }
        guard !domain.isEmpty, host.count > domain.count, host.reversed().starts(with: domain.reversed()),
            host[host.count - domain.count - 1] == UInt8(ascii: ".")
        else { return false }
        return !Cookie.isAddress(String(decoding: host, as: UTF8.self))
    }

    /// RFC 6265 §5.1.4: the request path is the cookie's, or lies below it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let (request, cookie) = (Array(requestPath.utf8), Array(cookiePath.utf8))
        guard request.starts(with: cookie) else { return false }
        return request.count == cookie.count || cookie.last == UInt8(ascii: "/") || request[cookie.count] == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4's default path: the request path up to, not including, its last `/`;
    /// `/` when that leaves nothing.
    static func defaultPath(_ requestPath: Substring) -> String {
        let bytes = requestPath.utf8
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")), last != bytes.startIndex else {
            return "/"
        }
        return String(Substring(bytes[..<last]))
    }

    /// Whether `host` is an IP address literal (an IPv6 one holds a colon; an IPv4 one is four
    /// dotted numbers): a cookie for one is host-only, never for a "domain" of it.
    static func isAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        let parts = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }

    /// Lower case, no leading dot, no trailing dot (`Example.COM.` is `example.com`).
    static func canonical(_ domain: String) -> String {
        let bytes = Array(domain.lowercased().utf8)
        guard let first = bytes.firstIndex(where: { $0 != UInt8(ascii: ".") }),
            let last = bytes.lastIndex(where: { $0 != UInt8(ascii: ".") })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Whether `text`'s first byte is `byte`.
    static func starts(_ text: some StringProtocol, with byte: Character) -> Bool { text.utf8.first == byte.asciiValue }
}
