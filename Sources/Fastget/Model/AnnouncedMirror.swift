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
    /// Whether connections for this mirror (and its redirects) may reach public addresses
    /// only: the server that named it is on one (`Connector.connect`'s `publicOnly`).
    package let publicOnly: Bool

    init(url: HTTPURL, priority: Int?, geo: String?, depth: Int?, publicOnly: Bool = false) {
        self.url = url
        self.priority = priority
        self.geo = geo
        self.depth = depth
        self.publicOnly = publicOnly
    }

    /// At most this many mirrors are taken from one answer.
    static let limit = 32

    /// The mirrors `linkFields` (the answer's `Link` field lines) name for the file at `base`
    /// (the URL that answered), best priority first, then in the server's order. Skipped:
    /// links of other relations, targets that are not `http`/`https` or do not parse, an
    /// `http` mirror of an `https` file (a downgrade anyone on the path could then serve),
    /// `base` itself and repeats, a link whose `anchor` names another resource, and a mirror
    /// whose host spells an address that is not public (or is `localhost`) unless `base` is
    /// inside too (by its spelling, or `peer`, the address its answer came from): a public
    /// server must not point the client at the machine's own or its network's services. The
    /// mirrors of a public server may connect to public addresses only (`publicOnly`), which
    /// also stops a name that resolves inside. A target's user info is dropped: a server's
    /// header must not choose credentials.
    static func announced(in linkFields: [String], base: HTTPURL, peer: IPAddress? = nil) -> [AnnouncedMirror] {
        guard !linkFields.isEmpty else { return [] }
        var seen: Set<String> = [base.withoutCredentials.description]
        var mirrors: [AnnouncedMirror] = []
        let baseIsInternal = isInternal(base.host) || peer?.isPublic == false
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
            mirrors.append(AnnouncedMirror(url: url, priority: priority, geo: geo, depth: depth, publicOnly: !baseIsInternal))
        }
        // Stable: equal priorities keep the server's order.
        return mirrors.enumerated().sorted { left, right in
            let (a, b) = (left.element.priority ?? Int.max, right.element.priority ?? Int.max)
            return a != b ? a < b : left.offset < right.offset
        }.map(\.element)
    }

    /// Whether `host` names this machine or a private network by itself: `localhost` (and
    /// names under it), or any spelling the resolver reads as an address that is not public
    /// (`IPAddress.isPublic`: `127.1`, `0x7f000001`, `[::ffff:10.0.0.1]` …). A name that
    /// resolves to such an address is caught when connecting.
    static func isInternal(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower.hasSuffix(".localhost") || lower == "localhost." { return true }
        return IPAddress(host: lower).map { !$0.isPublic } ?? false
    }
}
