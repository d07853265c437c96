/// Why a download failed: a code that decides the exit status and retry policy, one full
/// sentence for people, and an optional hint for what to do next.
public struct FastgetError: Error, Sendable, CustomStringConvertible {
    /// An extensible error code. Each code has one retry policy, decided here and nowhere else.
    /// (The `fastget` command maps each code to its exit status, which each code's description
    /// names; a program embedding the library decides its own.)
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// A stable name ("not-found"), for logs and JSON.
        public let rawValue: String
        /// The status the `fastget` command exits with for this code (sysexits.h values, 130
        /// for interruption); kept for code written before the command mapped them itself.
        @available(*, deprecated, message: "the fastget command's exit status: map `code` to your program's own")
        public var exitCode: Int32 { commandExitStatus }
        /// What `exitCode` gives.
        let commandExitStatus: Int32
        /// Whether repeating the same request may succeed (network hiccups, busy servers).
        public let isRetryable: Bool

        /// The code named `rawValue`; an unknown name gives a code with exit status 1.
        public init(rawValue: String) {
            self = Code.all.first { $0.rawValue == rawValue } ?? Code(rawValue, exit: 1, retryable: false)
        }

        init(_ rawValue: String, exit: Int32, retryable: Bool = false) {
            self.rawValue = rawValue
            self.commandExitStatus = exit
            self.isRetryable = retryable
        }

        /// The code's name.
        public var description: String { rawValue }

        /// A bad option or URL: nothing touched the network. Exit 64.
        public static let usage = Code("usage", exit: 64)
        /// The server refused the request as made: a 4xx other than not-found (404/410), access
        /// (401/403/407) and the temporary ones (408/425/429), e.g. 400, 405, 409, 418, 451.
        /// Asking again the same way gets the same answer. Exit 65.
        public static let clientError = Code("client-error", exit: 65)
        /// A needed input is missing: HTTP 404/410, or an unreadable CA file. Exit 66.
        public static let notFound = Code("not-found", exit: 66)
        /// The host name does not resolve. Exit 68.
        public static let hostNotFound = Code("host-not-found", exit: 68)
        /// The server refused the connection or cannot be reached. Exit 69.
        public static let unavailable = Code("unavailable", exit: 69)
        /// The server failed with 500, retried as it may pass; other 5xx than the temporary ones
        /// (501, 505, 507, …) are `unavailable`, not retried. Exit 69.
        public static let serverError = Code("server-error", exit: 69, retryable: true)
        /// The output file exists (no-clobber) or cannot be created. Exit 73.
        public static let cannotCreateOutput = Code("cannot-create-output", exit: 73)
        /// Reading or writing local files failed, including a full disk. Exit 74.
        public static let localIO = Code("local-io", exit: 74)
        /// A timeout, a dropped connection, a busy server (408/425/429/502/503/504), a DNS hiccup. Exit 75.
        public static let temporary = Code("temporary", exit: 75, retryable: true)
        /// The server broke HTTP's rules or ours: malformed response, wrong range, bad redirect. Exit 76.
        public static let protocolViolation = Code("protocol", exit: 76)
        /// TLS failed: handshake or certificate verification. Exit 76.
        public static let tls = Code("tls", exit: 76)
        /// The server demands credentials or forbids access (401/403/407). Exit 77.
        public static let accessDenied = Code("access-denied", exit: 77)
        /// The download was cancelled or interrupted. Exit 130.
        public static let cancelled = Code("cancelled", exit: 130)

        static let all: [Code] = [
            .usage, .clientError, .notFound, .hostNotFound, .unavailable, .serverError, .cannotCreateOutput, .localIO,
            .temporary, .protocolViolation, .tls, .accessDenied, .cancelled,
        ]
    }

    /// What kind of failure it is; decides the exit code and whether a retry may help.
    public let code: Code

    /// Whether the server (or the way to it) failed, not this machine or the user: what drops
    /// one of several servers of a file.
    var isServerSide: Bool { ![.usage, .cannotCreateOutput, .localIO, .cancelled].contains(code) }
    /// One sentence, without the "error:" prefix.
    public let message: String
    /// What can be done about it, when there is something: in the library's terms (options
    /// and calls). When it has a `remedy`, this is the remedy's description.
    public let hint: String?
    /// What can be done about it, as a value to act on or to word for another audience (the
    /// `fastget` command says it in its flags); nil when there is nothing or only `hint`'s words.
    public private(set) var remedy: Remedy?
    /// The HTTP status that caused the error, when one did.
    public let httpStatus: Int?

    /// Seconds the server asked to wait before retrying (`Retry-After` on 503/429), when it did.
    let retryAfter: Double?

    /// What failed underneath, when the error came from the system or from TLS: something to
    /// test for (`ENOSPC`, a refused connection) without reading `message`.
    public private(set) var underlying: Underlying?

    /// A failure below fastget's own checks. More cases may come in later releases: a `switch`
    /// over it needs a `default`.
    public enum Underlying: Sendable, Equatable {
        /// A system call (`operation`: `connect`, `recv`, `pwrite`, `fsync`, …) failed with
        /// `errno` (`ENOSPC` is 28, `ECONNREFUSED` 111 on Linux).
        case system(operation: String, errno: Int32)
        /// TLS failed for `reason` (OpenSSL's, or what fastget saw: a verification that
        /// failed, a handshake that timed out).
        case tls(reason: String)
    }

    /// An error of kind `code` with a one-sentence `message`.
    public init(_ code: Code, _ message: String, hint: String? = nil, httpStatus: Int? = nil) {
        self.init(code, message, hint: hint, httpStatus: httpStatus, retryAfter: nil)
    }

    /// An error of kind `code` with a one-sentence `message` and what can be done about it
    /// (`hint` is its description).
    public init(_ code: Code, _ message: String, remedy: Remedy, httpStatus: Int? = nil) {
        self.init(code, message, hint: remedy.description, httpStatus: httpStatus, retryAfter: nil)
        self.remedy = remedy
    }

    init(_ code: Code, _ message: String, hint: String?, httpStatus: Int?, retryAfter: Double?) {
        self.code = code
        self.message = message
        self.hint = hint
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// The same error with `hint` added when it has none.
    func withHint(_ hint: String?) -> FastgetError {
        guard self.hint == nil, let hint else { return self }
        var error = FastgetError(code, message, hint: hint, httpStatus: httpStatus, retryAfter: retryAfter)
        error.underlying = underlying
        return error
    }

    /// The same error with `remedy` (and its words as the hint) added when it has no hint.
    func withRemedy(_ remedy: Remedy?) -> FastgetError {
        guard hint == nil, let remedy else { return self }
        var error = withHint(remedy.description)
        error.remedy = remedy
        return error
    }

    /// Advice as the places that give it have it: words, or a remedy.
    enum Advice {
        case text(String)
        case remedy(Remedy)
    }

    /// The same error with `advice` added when it has no hint.
    func advised(_ advice: Advice?) -> FastgetError {
        switch advice {
        case .text(let text): withHint(text)
        case .remedy(let remedy): withRemedy(remedy)
        case nil: self
        }
    }

    /// The same error, caused by `error` when that is a system or TLS failure (a proxy's
    /// included).
    func caused(by error: any Error) -> FastgetError {
        var wrapped = self
        switch error {
        case let error as SystemError: wrapped.underlying = .system(operation: error.operation, errno: error.errno)
        case let error as TLSError: wrapped.underlying = .tls(reason: error.reason)
        case let error as ProxyError:
            if let cause = error.cause { wrapped.underlying = .system(operation: cause.operation, errno: cause.errno) }
        default: break
        }
        return wrapped
    }

    /// How long to wait before retry number `attempt` (1, 2, …): the server's Retry-After
    /// (capped at a minute), else exponential back-off with jitter: 0.25 s, 0.5 s, 1 s … 8 s.
    func retryDelay(attempt: Int) -> Double {
        if let retryAfter { return min(retryAfter, 60) }
        let base = min(8.0, 0.25 * Double(1 << min(max(attempt, 1) - 1, 6)))
        return base * Double.random(in: 0.75...1.25)
    }

    /// The exit status the `fastget` command uses for it (the README and the man page list them).
    @available(*, deprecated, message: "the fastget command's exit status: map `code` to your program's own")
    public var exitCode: Int32 { code.commandExitStatus }
    /// Whether trying again later may succeed.
    public var isRetryable: Bool { code.isRetryable }
    /// The message.
    public var description: String { message }

    /// The error for a final HTTP status that is not a success.
    /// The error for a final response that is not a success, with its `Retry-After` (seconds).
    static func status(_ head: ResponseHead, url: HTTPURL) -> FastgetError {
        let error = status(head.status, reason: head.reason, url: url)
        // Retry-After as delay-seconds (RFC 9110 §10.2.3); an HTTP-date falls back to back-off.
        guard let value = head.value("retry-after"), let seconds = Int(value.trimmingASCIISpaces()), seconds >= 0 else {
            return error
        }
        return FastgetError(error.code, error.message, hint: nil, httpStatus: error.httpStatus, retryAfter: Double(seconds))
    }

    /// 204 No Content and 205 Reset Content to a GET say the URL has no file to give: a
    /// success for an API call, but for a download no file at all, like 404 (exit 66, not
    /// retried), never an empty file saved as done.
    static func isNoContent(_ status: Int) -> Bool { status == 204 || status == 205 }

    static func status(_ status: Int, reason: String, url: HTTPURL) -> FastgetError {
        let text = reason.isEmpty ? "\(status)" : "\(status) \(reason)"
        if isNoContent(status) {
            return FastgetError(.notFound, "server answered \(text) for \(url): there is no file to save", httpStatus: status)
        }
        let code: Code =
            switch status {
            case 404, 410: .notFound
            case 401, 403, 407: .accessDenied
            // Only these may pass on their own: retried (with Retry-After when sent).
            case 408, 425, 429, 502, 503, 504: .temporary
            case 500: .serverError
            // 501 Not Implemented, 505 and the rest say the same again: not retried.
            case 501...599: .unavailable
            // 416 to a range fastget asked for is the server breaking the protocol (a range
            // inside the length it gave), not the user's request.
            case 416: .protocolViolation
            case 400...499: .clientError
            default: .protocolViolation
            }
        return FastgetError(code, "server answered \(text) for \(url)", httpStatus: status)
    }

    /// Wraps an error from the layers below with the URL it concerns. The one place where system,
    /// resolver, TLS and parser errors become codes.
    static func from(_ error: any Error, url: HTTPURL) -> FastgetError {
        classify(error, url: url).caused(by: error)
    }

    private static func classify(_ error: any Error, url: HTTPURL) -> FastgetError {
        switch error {
        case let error as FastgetError:
            return error
        case let error as ResolveError:
            if error.isNotFound {
                return FastgetError(.hostNotFound, "cannot resolve host '\(error.host)': \(error)")
            }
            return FastgetError(.temporary, "cannot resolve host '\(error.host)' now: \(error)")
        case let error as SystemError:
            let peer = url.authority
            switch (error.operation, error.errno) {
            case ("connect", Errno.connectionRefused):
                return FastgetError(.unavailable, "connection refused by \(peer)")
            case ("connect", Errno.timedOut):
                return FastgetError(.temporary, "connection to \(peer) timed out")
            case ("connect", Errno.networkUnreachable), ("connect", Errno.noRouteToHost), ("connect", Errno.addressNotAvailable),
                ("connect", Errno.addressFamilyNotSupported):
                return FastgetError(.unavailable, "cannot reach \(peer): \(error.reason)")
            case (_, Errno.resourceTemporarilyUnavailable), (_, Errno.timedOut):
                return FastgetError(.temporary, "no data from \(peer) within the timeout")
            default:
                return FastgetError(.temporary, "connection to \(peer) failed: \(error.reason)")
            }
        case let error as TLSError:
            switch error.kind {
            case .verification:
                return FastgetError(.tls, "TLS with \(url.authority): \(error.reason)", remedy: .trustAnotherCA)
            case .configuration:
                return FastgetError(.notFound, "TLS: \(error.reason)")
            case .noTrustStore:
                return FastgetError(.notFound, "TLS: \(error.reason)", remedy: .provideTrustStore)
            case .handshake:
                return FastgetError(.tls, "TLS with \(url.authority): \(error.reason)")
            case .timedOut:
                return FastgetError(.temporary, "TLS handshake with \(url.authority) timed out")
            case .transfer, .truncated:
                return FastgetError(.temporary, "TLS with \(url.authority) failed: \(error.reason)")
            }
        case let error as HTTPParseError:
            return FastgetError(.protocolViolation, "invalid response from \(url.authority): \(error)")
        case let error as TransferError:
            return FastgetError(.temporary, "\(error) (\(url.authority))")
        case let error as InsideAddressError:
            return FastgetError(.unavailable, "refusing to connect: \(error)")
        case let error as ProxyError:
            let code: Code =
                switch error.kind {
                case .invalid: .usage
                case .authenticationRequired: .accessDenied
                case .refused, .unreachable: .unavailable
                case .unresolved: .hostNotFound
                case .unanswered, .gatewayFailed: .temporary
                }
            let remedy: Remedy? =
                switch error.advice {
                case .checkProxy(let gateway): .checkProxy(gatewayFor: gateway)
                case .credentials(let proxy, let refused): .proxyCredentials(proxy: proxy, refused: refused)
                case nil: nil
                }
            return remedy.map { FastgetError(code, error.message, remedy: $0) } ?? FastgetError(code, error.message)
        case let error as UnsendableField:
            // The options were checked before anything was sent: the value came from a server
            // (an ETag echoed in If-Range) or from a file's stored validator.
            return FastgetError(.protocolViolation, "\(error) (to \(url.authority))")
        case let error as URLParseError:
            return FastgetError(.usage, "invalid URL: \(error)")
        default:
            return FastgetError(.protocolViolation, "\(error)")
        }
    }

    /// Wraps a failed local file operation on `path`.
    static func local(_ error: SystemError, path: String, creating: Bool = false) -> FastgetError {
        describeLocal(error, path: path, creating: creating).caused(by: error)
    }

    private static func describeLocal(_ error: SystemError, path: String, creating: Bool) -> FastgetError {
        if error.errno == Errno.noSpace || error.errno == Errno.diskQuotaExceeded {
            return FastgetError(.localIO, "no space left on the device for \(path)")
        }
        if creating
            && [
                Errno.permissionDenied, Errno.notPermitted, Errno.readOnlyFileSystem, Errno.noSuchFileOrDirectory, Errno.notDirectory,
                Errno.isDirectory, Errno.fileNameTooLong,
            ].contains(error.errno)
        {
            return FastgetError(.cannotCreateOutput, "cannot create \(path): \(error.reason)")
        }
        return FastgetError(.localIO, "\(error.operation) \(path): \(error.reason)")
    }
}
