/// Failures of a response's framing, found while reading it.
package enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection ended before a response head arrived. On a reused keep-alive connection
    /// this is the server closing it while idle, and the request is safe to repeat.
    case closedBeforeResponse(reused: Bool)
    /// The connection ended inside the head.
    case closedInHead
    /// The response head did not arrive within the timeout, though bytes kept trickling in.
    case slowHead
    /// The connection ended before the body's announced end (Content-Length or last chunk).
    case truncatedBody(received: Int64, expected: Int64?)
    /// A body delimited by the close ended, over TLS, without a close_notify: a FIN anyone on
    /// the path could have forged, so the body may be cut short.
    case unannouncedClose(received: Int64)
    /// A chunked body's framing (chunk headers, last chunk, trailers) kept trickling in
    /// without data past its deadline.
    case slowBody

    package var description: String {
        switch self {
        case .closedBeforeResponse: "the server closed the connection without answering"
        case .closedInHead: "the server closed the connection in the middle of the response head"
        case .slowHead: "the response head did not arrive within the timeout"
        case .unannouncedClose(let received):
            "the connection closed after \(received) body bytes without a TLS close_notify; the body may be cut short"
        case .slowBody: "the response body stalled in its chunked framing beyond the timeout"
        case .truncatedBody(let received, let expected):
            if let expected {
                "the connection closed after \(received) of \(expected) body bytes"
            } else {
                "the connection closed after \(received) bytes, before the end of the chunked body"
            }
        }
    }
}
