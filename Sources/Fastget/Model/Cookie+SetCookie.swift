extension Cookie {
    /// The longest name and value together that is stored (RFC 6265bis §5.6: 4096 bytes); a
    /// longer one is dropped, as browsers do.
    static let maximumSize = 4096
    /// The longest attribute value read (RFC 6265bis §5.6: 1024 bytes); a longer one is
    /// ignored, so that no `Path` or `Domain` makes a cookie, or the file it is saved to, huge.
    static let maximumAttributeSize = 1024

    /// The cookie a `Set-Cookie` field value sets when it comes in the answer to `url` at
    /// `now` (seconds since the epoch), by RFC 6265 §5.2–5.3; nil when it is to be ignored:
    /// no `name=`, a control character, too long, a `Domain` the host is not in (another
    /// site, a bare top-level domain such as `com`, or any domain for an IP address) or that
    /// is a public suffix such as `co.uk` (`PublicSuffix`), or `Secure` from a plain http
    /// answer. A tab counts as a control character here: it separates a cookie file's fields. A cookie whose expiry has passed is returned too:
    /// storing it removes the one it replaces.
    public init?(setCookie text: String, from url: HTTPURL, now: Int) {
        // Split on bytes: a `;` or `=` before a combining mark is no Character of its own.
        var parts = text.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = Substring(pair[..<equals]).trimmingASCIISpaces()
        let value = Substring(pair[pair.index(after: equals)...]).trimmingASCIISpaces()
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Cookie.maximumSize,
            !containsControlCharacter(name), !containsControlCharacter(value), !(name + value).utf8.contains(0x09)
        else { return nil }
        var attributes = Attributes()
        for part in parts { attributes.read(Substring(part), now: now) }

        let host = Cookie.canonical(url.host)
        var domain = host
        var hostOnly = true
        if let given = attributes.domain, given == host {
            // The host's own name: its subdomains too, except for an address (it has none) or
            // a dotless name, which may be a top-level domain (RFC 6265 §5.3 step 5).
            // A public suffix itself (`github.io` as a host) gets a host-only cookie too, as browsers do.
            hostOnly = Cookie.isAddress(host) || !host.utf8.contains(UInt8(ascii: ".")) || PublicSuffix.contains(host)
        } else if let given = attributes.domain {
            // Only a name within the host's own domain, never an address's "domain", and never
            // one with no dot at all: `Domain=com` would be every .com site's cookie, nor a
            // public suffix (`co.uk`, `github.io`: every site registered under it).
            guard !Cookie.isAddress(host), given.utf8.contains(UInt8(ascii: ".")), !PublicSuffix.contains(given),
                Cookie.domainMatches(host, given)
            else { return nil }
            domain = given
            hostOnly = false
        }
        if attributes.secure && url.scheme != .https { return nil }
        self.init(
            name: name, value: value, domain: domain, hostOnly: hostOnly,
            path: attributes.path ?? Cookie.defaultPath(url.path), secure: attributes.secure, httpOnly: attributes.httpOnly,
            expires: attributes.maximumAge ?? attributes.expires)
    }

    /// What the attributes after the name and value say; an unknown or malformed one is ignored.
    private struct Attributes {
        var domain: String?
        var path: String?
        var expires: Int?
        var maximumAge: Int?
        var secure = false
        var httpOnly = false

        mutating func read(_ part: Substring, now: Int) {
            let bytes = part.utf8
            let equals = bytes.firstIndex(of: UInt8(ascii: "="))
            let key = Substring(bytes[..<(equals ?? bytes.endIndex)]).trimmingASCIISpaces().lowercased()
            let value = equals.map { Substring(bytes[bytes.index(after: $0)...]).trimmingASCIISpaces() } ?? ""
            guard value.utf8.count <= Cookie.maximumAttributeSize else { return }
            switch key {
            case "expires":
                if let seconds = CookieDate.seconds(value) { expires = seconds }
            case "max-age":
                if let delta = Attributes.delta(value) {
                    // 0 or less: gone now (the earliest time); the sum is clamped, not trapped.
                    maximumAge = delta <= 0 ? Int.min : now.addingReportingOverflow(delta).overflow ? Int.max : now + delta
                }
            case "domain":
                let canonical = Cookie.canonical(value)
                if !canonical.isEmpty { domain = canonical }
            case "path":
                // A tab or control character would not survive a cookie file: the default instead.
                path = Cookie.starts(value, with: "/") && !containsControlCharacter(value) && !value.utf8.contains(0x09) ? value : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                break
            }
        }

        /// `Max-Age`'s value: an optional `-` and digits (RFC 6265 §5.2.2); a huge one is huge.
        static func delta(_ text: String) -> Int? {
            let negative = text.first == "-"
            let digits = negative ? Substring(text.dropFirst()) : Substring(text)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            guard digits.count <= 18, let magnitude = Int(digits) else { return negative ? Int.min : Int.max }
            return negative ? -magnitude : magnitude
        }
    }
}
