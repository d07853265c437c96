/// What guards a resumed byte range: the server's strong ETag, or else its Last-Modified date.
package enum Validator: Sendable, Equatable, CustomStringConvertible {
    case etag(String)
    case lastModified(String)

    /// The value sent in `If-Range`.
    package var headerValue: String {
        switch self {
        case .etag(let value), .lastModified(let value): value
        }
    }

    package var description: String {
        switch self {
        case .etag(let value): "ETag \(value)"
        case .lastModified(let value): "Last-Modified \(value)"
        }
    }

    /// Whether a response names the same version (its ETag or Last-Modified equals this).
    func matches(_ head: ResponseHead) -> Bool {
        switch self {
        case .etag(let value): head.etag == value
        case .lastModified(let value): head.lastModified == value
        }
    }

    /// The strong ETag when there is one, else Last-Modified, else nil.
    init?(_ resource: RemoteResource) {
        if let etag = resource.strongETag {
            self = .etag(etag)
        } else if let date = resource.lastModified {
            self = .lastModified(date)
        } else {
            return nil
        }
    }
}
