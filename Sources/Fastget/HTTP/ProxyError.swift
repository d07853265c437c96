/// Why a proxy cannot be used: its URL is malformed or not `http://`, it cannot be resolved or
/// reached, it does not answer, it wants credentials, or it refused the tunnel. Each names the
/// proxy, never the origin behind it. `FastgetError.from` gives each kind its code.
package struct ProxyError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// The proxy URL (given or from the environment) is malformed or not `http://`.
        case invalid
        /// The proxy answered 407.
        case authenticationRequired
        /// The proxy answered a `CONNECT` with anything else but 2xx.
        case refused
        /// The proxy's host name does not resolve.
        case unresolved
        /// Nothing accepts connections at the proxy's address, or it cannot be reached.
        case unreachable
        /// The proxy did not answer in time (connect, tunnel, a plain request), or its name could
        /// not be looked up now.
        case unanswered
        /// The proxy answered a plain request 502 or 504: it got no usable answer from the origin.
        /// A plain proxy relays an origin's own 502 the same way, so this stays a temporary
        /// failure, retried as an origin's 502 is.
        case gatewayFailed
    }

    package let kind: Kind
    /// One sentence.
    package let message: String
    /// What can be done about it, when there is something (`FastgetError` words it).
    package let advice: Advice?

    /// What can be done about a proxy's failure.
    package enum Advice: Sendable {
        /// Check where the proxy was set (it failed as the gateway to `gatewayFor`, when given).
        case checkProxy(gatewayFor: String?)
        /// Give the proxy `proxy` credentials in its URL (`refused`: the ones there were refused).
        case credentials(proxy: String, refused: Bool)
    }
    /// The system call that failed underneath, when one did.
    package var cause: SystemError?

    package init(_ kind: Kind, _ message: String, advice: Advice? = nil, cause: SystemError? = nil) {
        self.kind = kind
        self.message = message
        self.advice = advice
        self.cause = cause
    }

    package var description: String { message }

    /// Where the proxy was set, for hints.
    private static let whereSet = Advice.checkProxy(gatewayFor: nil)

    /// A 407, to a plain request through the proxy or to its `CONNECT`: one message either way.
    package static func wantsCredentials(_ proxy: HTTPURL) -> ProxyError {
        let name = proxy.withoutCredentials.authority
        return ProxyError(
            .authenticationRequired, "proxy \(name) wants credentials (407)",
            advice: .credentials(proxy: name, refused: proxy.user != nil))
    }

    /// A plain request through `proxy` for `url` that got no answer head: nothing within the
    /// timeout, or a close before any byte on a connection that had answered nothing yet (a
    /// reused one that closes is the keep-alive race, retried as it is). Other errors as they are.
    package static func exchanging(with proxy: HTTPURL, for url: HTTPURL, _ error: any Error) -> any Error {
        let name = proxy.withoutCredentials.authority
        switch error {
        case let error as SystemError where error.errno == Errno.timedOut || error.errno == Errno.resourceTemporarilyUnavailable:
            return ProxyError(.unanswered, "proxy \(name) sent no answer for \(url) within the timeout", advice: whereSet, cause: error)
        case TransferError.closedBeforeResponse(reused: false):
            return ProxyError(.unanswered, "proxy \(name) closed the connection without answering for \(url)", advice: whereSet)
        default:
            return error
        }
    }

    /// A 502 or 504 to a plain request through `proxy`: the proxy's word on the origin.
    package static func gatewayFailed(_ proxy: HTTPURL, status: Int, reason: String, for url: HTTPURL) -> ProxyError {
        let text = reason.isEmpty ? "\(status)" : "\(status) \(reason)"
        return ProxyError(
            .gatewayFailed, "proxy \(proxy.withoutCredentials.authority) answered \(text) for \(url)",
            advice: .checkProxy(gatewayFor: url.authority))
    }

    /// The error of connecting to `proxy` (resolving it, connecting, asking for a tunnel), with
    /// the proxy named; a `ProxyError` already is one.
    package static func connecting(to proxy: HTTPURL, _ error: any Error) -> any Error {
        let name = proxy.withoutCredentials.authority
        switch error {
        case let error as ResolveError:
            return error.isNotFound
                ? ProxyError(.unresolved, "cannot resolve proxy host '\(proxy.host)': \(error)", advice: whereSet)
                : ProxyError(.unanswered, "cannot resolve proxy host '\(proxy.host)' now: \(error)", advice: whereSet)
        case let error as SystemError where error.errno == Errno.connectionRefused:
            return ProxyError(.unreachable, "connection refused by proxy \(name)", advice: whereSet, cause: error)
        case let error as SystemError where error.errno == Errno.timedOut || error.errno == Errno.resourceTemporarilyUnavailable:
            return ProxyError(.unanswered, "proxy \(name) did not answer within the connect timeout", advice: whereSet, cause: error)
        case let error as SystemError:
            return ProxyError(.unreachable, "cannot reach proxy \(name): \(error.reason)", advice: whereSet, cause: error)
        case is TransferError:
            return ProxyError(.unanswered, "proxy \(name) closed the connection before answering", advice: whereSet)
        default:
            return error
        }
    }
}
