/// What names one version of the file on a server: its ETag as sent, weak or strong, and its
/// Last-Modified. Express (`send`) keeps Last-Modified and changes only a weak ETag when a file
/// is rewritten at the same size within a second, so both are compared; only the strong ETag
/// or the date can go in `If-Range` (RFC 9110 §13.1.5).
package struct Validator: Sendable, Equatable, CustomStringConvertible {
    /// The entity tag as sent, weak (`W/"…"`) or strong.
    package let etag: String?
    package let lastModified: String?
    /// Read from a version 1 or 2 journal as Last-Modified alone: that release dropped a weak
    /// ETag, so whether the file had one then, and which, is unknown.
    package let etagUnknown: Bool

    /// Nil when there is neither (an empty field counts as none).
    package init?(etag: String?, lastModified: String?) {
        let etag = etag?.isEmpty == false ? etag : nil
        let lastModified = lastModified?.isEmpty == false ? lastModified : nil
        guard etag != nil || lastModified != nil else { return nil }
        self.etag = etag
        self.lastModified = lastModified
        etagUnknown = false
    }

    private init(lastModifiedWithETagUnknown lastModified: String) {
        (etag, self.lastModified, etagUnknown) = (nil, lastModified, true)
    }

    /// The probe's ETag and Last-Modified, or nil when it gave neither.
    init?(_ resource: RemoteResource) {
        self.init(etag: resource.etag, lastModified: resource.lastModified)
    }

    /// A version known only by its ETag (what a version 1 or 2 journal recorded for kind 1).
    package static func etag(_ value: String) -> Validator { Validator(etag: value, lastModified: nil)! }

    /// A version known only by its Last-Modified.
    package static func lastModified(_ value: String) -> Validator { Validator(etag: nil, lastModified: value)! }

    /// What a version 1 or 2 journal recorded as Last-Modified (kind 2): the release that wrote
    /// it kept the date whenever there was no strong ETag, dropping a weak one.
    package static func lastModifiedWithETagUnknown(_ value: String) -> Validator {
        Validator(lastModifiedWithETagUnknown: value)
    }

    /// Whether this record, from a release that dropped weak ETags, cannot tell whether `now`
    /// is its version: `now` has a weak ETag, which the record may have lacked or had otherwise.
    package func cannotTell(_ now: Validator?) -> Bool {
        etagUnknown && now?.etag != nil && now?.strongETag == nil
    }

    /// The entity tag when it is strong: weak tags cannot guard a byte range.
    package var strongETag: String? {
        guard let etag, !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    /// The value sent in `If-Range`: the strong ETag, else Last-Modified; nil with only a weak
    /// ETag, which then cannot vouch for a resume on its own.
    package var headerValue: String? { strongETag ?? lastModified }

    /// What `If-Range` carries, as text for messages and the completion mark: "ETag …" or
    /// "Last-Modified …".
    package var guardDescription: String? {
        if let strongETag { return "ETag \(strongETag)" }
        return lastModified.map { "Last-Modified \($0)" }
    }

    package var description: String {
        [etag.map { "ETag \($0)" }, lastModified.map { "Last-Modified \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }

    /// The first field `other` gives a value other than this one's ("ETag W/"b", expected
    /// W/"a""); nil when none differs. A field either lacks is no difference: CDNs leave the
    /// ETag out of 206 answers that their HEAD answers carry. A strong ETag both give decides
    /// (RFC 9110 §8.8.1): one server's HEAD and 206 answers may spell Last-Modified differently.
    package func conflict(with other: Validator?) -> String? {
        guard let other else { return nil }
        if let etag, let theirs = other.etag, theirs != etag { return "ETag \(theirs), expected \(etag)" }
        if strongETag != nil, other.strongETag == strongETag { return nil }
        if let lastModified, let theirs = other.lastModified, !Validator.sameDate(theirs, lastModified) {
            return "Last-Modified \(theirs), expected \(lastModified)"
        }
        return nil
    }

    /// Whether two Last-Modified values name the same second: equal as text, or as dates.
    private static func sameDate(_ one: String, _ other: String) -> Bool {
        one == other || HTTPDate.seconds(one).map { $0 == HTTPDate.seconds(other) } == true
    }

    /// Whether a response names this version: no field differs, and it carries the one
    /// `If-Range` sent (a 200 without it answers a failed `If-Range`, or comes from another
    /// version).
    func matches(_ head: ResponseHead) -> Bool {
        let theirs = Validator(etag: head.etag, lastModified: head.lastModified)
        guard conflict(with: theirs) == nil else { return false }
        if let strongETag { return theirs?.etag == strongETag }
        if let lastModified { return theirs?.lastModified.map { Validator.sameDate($0, lastModified) } == true }
        return true
    }

    /// Whether `earlier` (a journal's record) and `now` (a probe) name the same version: no
    /// field differs, and `If-Range` would carry the same field (a strong ETag that appeared or
    /// went means another file), and `earlier` can tell (`cannotTell`).
    package static func same(_ earlier: Validator?, _ now: Validator?) -> Bool {
        guard earlier?.strongETag == now?.strongETag, earlier?.cannotTell(now) != true else { return false }
        if earlier?.strongETag == nil, (earlier?.lastModified == nil) != (now?.lastModified == nil) { return false }
        return earlier?.conflict(with: now) == nil
    }

    /// This version with the fields only `other` gives filled in (a resume knows what the
    /// journal recorded and what the probe sees now; a 206 is compared with both).
    package func filled(from other: Validator?) -> Validator {
        Validator(etag: etag ?? other?.etag, lastModified: lastModified ?? other?.lastModified)!
    }

    /// Whether a response head carries a field that differs: see `conflict(with:)`.
    func conflict(with head: ResponseHead) -> String? {
        conflict(with: Validator(etag: head.etag, lastModified: head.lastModified))
    }
}
