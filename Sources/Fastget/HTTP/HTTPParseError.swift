/// Why a response head, chunked body or header value was rejected.
package enum HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case notHTTP
    case unsupportedVersion(String)
    case malformedStatusLine
    case headTooLarge(limit: Int)
    case tooManyHeaderLines(limit: Int)
    case malformedHeaderLine
    case invalidContentLength(String)
    case conflictingContentLength
    case invalidContentRange(String)
    case unsupportedTransferEncoding(String)
    case invalidChunkSize
    case chunkExtensionTooLong
    case malformedChunk
    case trailersTooLarge

    package var description: String {
        switch self {
        case .notHTTP: "the server's answer is not HTTP"
        case .unsupportedVersion(let version): "unsupported HTTP version '\(version)'"
        case .malformedStatusLine: "malformed status line"
        case .headTooLarge(let limit): "response head larger than \(limit) bytes"
        case .tooManyHeaderLines(let limit): "more than \(limit) header lines"
        case .malformedHeaderLine: "malformed header line"
        case .invalidContentLength(let value): "invalid Content-Length '\(value)'"
        case .conflictingContentLength: "conflicting Content-Length values"
        case .invalidContentRange(let value): "invalid Content-Range '\(value)'"
        case .unsupportedTransferEncoding(let value): "unsupported Transfer-Encoding '\(value)'"
        case .invalidChunkSize: "invalid chunk size in chunked body"
        case .chunkExtensionTooLong: "chunk extension too long"
        case .malformedChunk: "malformed chunked body"
        case .trailersTooLarge: "chunked trailers too large"
        }
    }
}
