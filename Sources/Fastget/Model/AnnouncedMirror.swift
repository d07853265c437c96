/// A mirror of the file that the server names in its answer: `Link: <URL>; rel=duplicate`
/// (RFC 6249, Metalink/HTTP, as MirrorBrain sends it), with the link's optional priority
/// (`pri`, 1–999999, lower first), region (`geo`, a country code) and directory depth
/// (`depth`).
public struct AnnouncedMirror: Sendable, Equatable {
    /// The mirror's URL for the file (resolved against the answering URL, no user info).
    public let url: HTTPURL
    /// `pri`: 1–999999, lower preferred; nil when absent or out of range.
    public let priority: Int?
    /// `geo`: the mirror's country, two lower-case letters; nil when absent or malformed.
    public let geo: String?
    /// `depth`: how many path segments of the URL are the mirror's own; nil when absent.
    public let depth: Int?

    /// At most this many mirrors are taken from one answer.
    static let limit = 32

    /// The mirrors `linkFields` (the answer's `Link` field lines) name for the file at `base`
    /// (the URL that answered), best priority first, then in the server's order. Skipped:
    /// links of other relations, targets that are not `http`/`https` or do not parse, an
    /// `http` mirror of an `https` file (a downgrade anyone on the path could then serve),
    /// `base` itself and repeats, a link whose `anchor` names another resource, and a mirror
    /// on a loopback, private or link-local address (or `localhost`) unless `base` is on one
    /// too: a public server must not point the client at the machine's own or its network's
    /// services. A target's user info is dropped: a server's header must not choose credentials.
    static func announced(in linkFields: [String], base: HTTPURL) -> [AnnouncedMirror] {
        var seen: Set<String> = [base.withoutCredentials.description]
        var mirrors: [AnnouncedMirror] = []
        let baseIsInternal = isInternal(base.host)
        for link in linkFields.flatMap(LinkField.parse) where link.relations.contains("duplicate") {
            guard mirrors.count < limit, let resolved = try? base.resolving(link.target) else { continue }
            if let anchor = link.parameters["anchor"], (try? base.resolving(anchor))?.withoutCredentials != base.withoutCredentials {
                continue
            }
            let url = resolved.withoutCredentials
            if base.scheme == .https && url.scheme == .http { continue }
            if isInternal(url.host) && !baseIsInternal { continue }
            guard seen.insert(url.description).inserted else { continue }
            let priority = link.parameters["pri"].flatMap { Int($0) }.flatMap { (1...999_999).contains($0) ? $0 : nil }
            let geo = link.parameters["geo"].flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0.lowercased() : nil }
            let depth = link.parameters["depth"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
            mirrors.append(AnnouncedMirror(url: url, priority: priority, geo: geo, depth: depth))
        }
        // Stable: equal priorities keep the server's order.
        return mirrors.enumerated().sorted { left, right in
            let (a, b) = (left.element.priority ?? Int.max, right.element.priority ?? Int.max)
            return a != b ? a < b : left.offset < right.offset
        }.map(\.element)
    }

    /// Whether `host` names this machine or a private network by itself: `localhost`, an IPv4
    /// literal in 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12 or 192.168/16, or an IPv6
    /// literal that is unspecified, loopback, link-local, unique-local or IPv4-mapped. (A name
    /// that resolves to such an address is not caught here.)
    static func isInternal(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower.hasSuffix(".localhost") { return true }
        if lower.contains(":") {
            return lower == "::" || lower == "::1" || lower.hasPrefix("fe8") || lower.hasPrefix("fe9") || lower.hasPrefix("fea")
                || lower.hasPrefix("feb") || lower.hasPrefix("fc") || lower.hasPrefix("fd") || lower.hasPrefix("::ffff:")
        }
        let octets = lower.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard octets.count == 4, let a = octets[0], let b = octets[1], octets[2] != nil, octets[3] != nil else { return false }
        return a == 0 || a == 10 || a == 127 || (a == 100 && (64...127).contains(b)) || (a == 169 && b == 254)
            || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
    }
}
