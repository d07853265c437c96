/// Why a proxy cannot be used: its URL is malformed or not `http://`, it wants credentials, or
/// it refused the tunnel. `FastgetError.from` gives each kind its code.
package struct ProxyError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// The proxy URL (given or from the environment) is malformed or not `http://`.
        case invalid
        /// The proxy answered 407.
        case authenticationRequired
        /// The proxy answered a `CONNECT` with anything else but 2xx.
        case refused
    }

    package let kind: Kind
    /// One sentence.
    package let message: String
    /// What the user can do about it, when there is something.
    package let hint: String?

    package init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    package var description: String { message }
}
