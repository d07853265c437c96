/// What the probe learned about the file on the server.
public struct RemoteResource: Sendable, Equatable {
    /// The URL after redirects; every range request goes here.
    public let url: HTTPURL
    /// The length in bytes; nil when the server does not say (chunked or close-delimited).
    public let length: Int64?
    /// Whether the server answers byte-range requests with 206.
    public let acceptsRanges: Bool
    /// The entity tag as sent, weak or strong.
    public let etag: String?
    /// `Last-Modified` as sent.
    public let lastModified: String?
    /// `Content-Disposition` as sent (it may name the file).
    public let contentDisposition: String?
    /// The whole file's digest the server announced (`Repr-Digest`, else `Digest`), checked at
    /// the end unless `DownloadOptions.checksum` is set or `checksAnnouncedDigest` is off.
    public var announcedDigest: Checksum? = nil
    /// The header field it came from: "Repr-Digest" or "Digest".
    public var announcedDigestField: String? = nil
    /// The mirrors the answer names (`Link: <…>; rel=duplicate`, RFC 6249), best first; a
    /// download also fetches from them unless `DownloadOptions.mirrorsFromHeaders` is off.
    public var announcedMirrors: [AnnouncedMirror] = []

    /// The entity tag when it is strong (weak tags cannot guard a byte range, RFC 9110 §13.1.5).
    public var strongETag: String? {
        guard let etag, !etag.hasPrefix("W/") else { return nil }
        return etag
    }

    /// Whether the download can be split into parallel byte ranges.
    public var isSegmentable: Bool { acceptsRanges && (length ?? 0) > 0 }
}
