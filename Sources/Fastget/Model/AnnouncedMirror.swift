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
    /// `base` itself and repeats. A target's user info is dropped: a server's header must not
    /// choose credentials.
    static func announced(in linkFields: [String], base: HTTPURL) -> [AnnouncedMirror] {
        var seen: Set<String> = [base.withoutCredentials.description]
        var mirrors: [AnnouncedMirror] = []
        for link in linkFields.flatMap(LinkField.parse) where link.relations.contains("duplicate") {
            guard mirrors.count < limit, let resolved = try? base.resolving(link.target) else { continue }
            let url = resolved.withoutCredentials
            if base.scheme == .https && url.scheme == .http { continue }
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
}
