/// Sends requests with fastget's standard fields over pooled or new connections.
final class Requester: Sendable {
    let connector: Connector
    let pool: ConnectionPool
    let options: DownloadOptions
    /// Where `send` records each request, for the coordinator to publish.
    let events = EventQueue()
    /// The connections this download opened (the connector may serve other downloads too).
    private let counts = Locked(Connector.Statistics())
    var statistics: Connector.Statistics { counts.withLock { $0 } }
    /// Credentials from the URL, `-u` or netrc, sent only to the origin they were given for.
    let credentials: Credentials?
    /// Whether a 401 came to a request the credentials could answer and carried none of them
    /// (over http, a 401 that names no scheme fastget speaks).
    private let withheld = Locked(false)
    /// The challenges of the last 401, whichever origin sent it: what the hint can name.
    private let challenged = Locked<[AuthChallenge]>([])
    /// The origin of the URL the user gave: the only one that gets the user's own
    /// `Authorization` and `Cookie` fields. They are credentials for that site, and a redirect
    /// elsewhere (a CDN, another host entirely) must not receive them; curl drops them too.
    private let userOrigin: String
    /// The cookies this download sends and stores.
    let cookies: CookieJar
    /// The origins cookies go to and come from: the user's URL's and those its redirects led
    /// to. A mirror elsewhere is another site, even when a server named it: it gets none.
    private let cookieOrigins: Locked<Set<String>>

    init(connector: Connector, pool: ConnectionPool, options: DownloadOptions, url: HTTPURL) {
        self.connector = connector
        self.pool = pool
        self.options = options
        userOrigin = url.origin
        cookies = options.cookieJar ?? CookieJar()
        cookieOrigins = Locked([url.origin])
        if let user = url.user ?? options.user {
            let password = url.user != nil ? url.password : options.password
            credentials = Credentials(origin: url.origin, user: user, password: password, preemptive: url.scheme == .https)
        } else if let entry = options.netrc?.entry(for: url.host), let login = entry.login {
            credentials = Credentials(origin: url.origin, user: login, password: entry.password, preemptive: url.scheme == .https)
        } else {
            credentials = nil
        }
    }

    /// A request with fastget's fields, `extra` (the range and its validator), the credentials
    /// and the user's fields, which replace or remove fastget's of the same name
    /// (`UserHeaderField.merged`). The user's `Host`, like `Authorization` and `Cookie`, goes
    /// only to the origin given: another origin or a mirror gets its own name (curl sends a
    /// custom `Host` to the first host only, too).
    func request(_ method: String, _ url: HTTPURL, extra: [(name: String, value: String)] = []) -> HTTPRequest {
        var fields: [(name: String, value: String)] = options.userAgent.isEmpty ? [] : [("User-Agent", options.userAgent)]
        fields += [("Accept", "*/*"), ("Accept-Encoding", "identity")] + extra
        if let credentials, credentials.origin == url.origin, let value = credentials.authorization(method, url) {
            fields.append(("Authorization", value))
        }
        let given = options.headerFields.map(\.pair)
        let user = url.origin == userOrigin ? given : given.filter { !Requester.originBound.contains($0.name.lowercased()) }
        let host = user.first { $0.name.lowercased() == "host" }?.value
        var merged = UserHeaderField.merged(fields, user.filter { $0.name.lowercased() != "host" })
        // `-H 'Cookie:'` removes the field: the jar's cookies too, not only the user's.
        let cookieRemoved = user.last { $0.name.lowercased() == "cookie" }?.value.isEmpty == true
        if !cookieRemoved, takesCookies(url), let stored = cookies.header(for: url) {
            // One Cookie field (RFC 6265 §5.4): the user's own first, then the jar's.
            if let given = merged.firstIndex(where: { $0.name.lowercased() == "cookie" }) {
                merged[given].value += "; " + stored
            } else {
                merged.append(("Cookie", stored))
            }
        }
        return HTTPRequest(method: method, url: url, host: host, fields: merged)
    }

    /// Whether a request to `url` carries cookies, and its answer's `Set-Cookie` is stored.
    private func takesCookies(_ url: HTTPURL) -> Bool { cookieOrigins.withLock { $0.contains(url.origin) } }

    /// A redirect from `from` to `to` was followed: cookies go to `to`'s origin too when they
    /// went to `from`'s (a login on one host that sends the file from another).
    func followed(from: HTTPURL, to: HTTPURL) {
        cookieOrigins.withLock { origins in
            if origins.contains(from.origin) { origins.insert(to.origin) }
        }
    }

    /// Stores the cookies `head`, the answer to `request`, sets; returns it.
    private func answered(_ head: ResponseHead, to request: HTTPRequest) -> ResponseHead {
        let values = head.values("set-cookie")
        if !values.isEmpty && takesCookies(request.url) { cookies.store(setCookie: values, from: request.url) }
        return head
    }

    /// One I/O timeout from now: when a response head must be complete, and when a body read
    /// only to be dropped or finished (or a stretch of chunked framing) must have ended.
    var ioDeadline: Double { MonotonicClock.seconds() + options.ioSeconds }

    /// User-given fields sent only to the origin of the URL the user gave: credentials, and the
    /// name the user gave that origin.
    static let originBound: Set<String> = ["authorization", "cookie", "host"]

    /// Sends `request` and reads the response head, on `reusing` when it can carry another
    /// request, else on a parked connection, else on a new one. A kept connection that the
    /// server closed while idle is replaced by a new one once (the request had not been answered).
    /// `onConnection` learns what a stop must shut down to unblock this call (nil: nothing now).
    ///
    /// A 401 that asks for Digest, or renews a stale nonce, is answered (on the same connection
    /// when it can carry another request); a few times at most, since other connections of the
    /// download may renew the nonce meanwhile.
    func send(
        _ request: HTTPRequest, reusing kept: HTTPConnection? = nil,
        onConnection: ((any Interruptible)?) -> Void = { _ in }
    ) throws -> (HTTPConnection, ResponseHead) {
        var (connection, head) = try exchange(request, reusing: kept, onConnection: onConnection)
        var request = request
        for _ in 0..<Requester.challengeAnswers {
            guard head.status == 401, let credentials, answers(request),
                credentials.learn(from: head, sent: ownAuthorization(in: request))
            else { break }
            connection.discardBody(deadline: ioDeadline)
            if !connection.isReusable { connection.shutdown() }
            let value = credentials.authorization(request.method, request.url)
            if let index = request.fields.firstIndex(where: { $0.name == "Authorization" }) {
                if let value { request.fields[index].value = value } else { request.fields.remove(at: index) }
            } else if let value {
                request.fields.append(("Authorization", value))
            }
            (connection, head) = try exchange(request, reusing: connection, onConnection: onConnection)
        }
        if head.status == 401 {
            if ownAuthorization(in: request) != nil { credentials?.markRefused() } else if answers(request) { withheld.withLock { $0 = true } }
            challenged.withLock { $0 = AuthChallenge.parse(head.values("www-authenticate")) }
        }
        return (connection, head)
    }

    /// How many 401s one request answers with new credentials: the switch to Digest, then
    /// stale nonces.
    static let challengeAnswers = 3

    /// Whether the credentials may answer a 401 to `request`: it goes to their origin, and the
    /// user gave no `Authorization` field of their own (`-H 'Authorization: …'`).
    private func answers(_ request: HTTPRequest) -> Bool {
        credentials?.origin == request.url.origin && !options.headerFields.contains { $0.name.lowercased() == "authorization" }
    }

    /// The `Authorization` value fastget put in `request` from the credentials; nil when it
    /// carries none or the user's own field replaced it.
    private func ownAuthorization(in request: HTTPRequest) -> String? {
        answers(request) ? request.fields.first { $0.name == "Authorization" }?.value : nil
    }

    private func exchange(
        _ request: HTTPRequest, reusing kept: HTTPConnection?, onConnection: ((any Interruptible)?) -> Void
    ) throws -> (HTTPConnection, ResponseHead) {
        events.post(.request(method: request.method, url: request.url, range: request.fields.first { $0.name == "Range" }?.value))
        let reusable = kept.flatMap {
            $0.isReusable && $0.origin == request.url.origin && ($0.publicOnly || !request.publicOnly) ? $0 : nil
        }
        if let parked = reusable ?? pool.take(origin: request.url.origin, publicOnly: request.publicOnly) {
            onConnection(parked)
            do {
                try parked.send(request)
                return (parked, answered(try parked.readHead(method: request.method, deadline: ioDeadline), to: request))
            } catch TransferError.closedBeforeResponse(reused: true) {
                // fall through to a new connection
            } catch let error as SystemError where !error.isTimeout {
                // reset or broken pipe on a stale connection: same
            } catch is HTTPParseError {
                // Bytes the server sent after its previous body (more than its Content-Length)
                // came first: the connection is out of step, not the server's answer to this.
            }
            parked.invalidate()
            onConnection(nil)
        }
        let connection = try connector.connect(to: request.url, publicOnly: request.publicOnly, created: onConnection)
        let resumed = (connection.stream as? TLSStream)?.resumedSession
        counts.withLock { counts in
            counts.connections += 1
            if let resumed { resumed ? (counts.resumedHandshakes += 1) : (counts.fullHandshakes += 1) }
        }
        onConnection(connection)
        try connection.send(request)
        return (connection, answered(try connection.readHead(method: request.method, deadline: ioDeadline), to: request))
    }

    /// What to give after a 401: credentials when there are none, other ones when these were
    /// refused, the URL a redirect led to when they were not sent there. Nil for anything else
    /// (a 407 has its own).
    func credentialsAdvice(for error: any Error) -> FastgetError.Advice? {
        guard let error = error as? FastgetError, error.httpStatus == 401 else { return nil }
        let offered = challenged.withLock { $0 }
        if !offered.isEmpty, !offered.contains(where: { $0.scheme == "basic" }), DigestChallenge.best(in: offered) == nil {
            return .text(
                "the server asks for \(AuthChallenge.schemeNames(offered)), which fastget cannot answer (it speaks Basic, and Digest with MD5 or SHA-256)"
            )
        }
        guard let credentials else {
            return .remedy(.giveCredentials)
        }
        guard credentials.refused else {
            if options.headerFields.contains(where: { $0.name.lowercased() == "authorization" }) {
                // The user's own field replaced the credentials' on their origin: it was refused.
                return .remedy(.authorizationFieldRefused(origin: credentials.origin))
            }
            if withheld.withLock({ $0 }) {
                return .text("the server's 401 names no scheme fastget answers (Basic or Digest), so the credentials were not sent")
            }
            return .text("credentials go only to \(credentials.origin), not to another host a redirect leads to; give that URL to send them there")
        }
        let scheme = credentials.usesDigest ? "HTTP Digest" : "HTTP Basic"
        return .remedy(.credentialsRefused(user: credentials.user, scheme: scheme))
    }
}
