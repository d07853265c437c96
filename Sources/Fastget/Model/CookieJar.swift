/// The cookies of one or more downloads (RFC 6265): what the `Set-Cookie` fields of their
/// answers stored, and what a cookie file gave. Each request gets the ones that match its
/// host, path and scheme, so a cookie never goes to another site. Thread-safe: the
/// connections of a download, and the downloads that share it (`DownloadOptions.cookieJar`),
/// use it at once.
///
/// It lives in memory only: nothing of it is written to a download's journal. `save(to:)`
/// writes it to a cookie file when asked.
public final class CookieJar: Sendable {
    /// The most cookies it keeps; storing one more drops the one stored longest ago (a server
    /// cannot make it grow without bound).
    public static let capacity = 3000

    private let stored: Locked<[Cookie]>

    /// A jar holding `cookies` (a later one with the same name, domain and path replaces an
    /// earlier one).
    public init(_ cookies: [Cookie] = []) {
        stored = Locked([])
        for cookie in cookies { store(cookie) }
    }

    /// The cookies it holds, expired ones too until something is stored, in the order stored.
    public var cookies: [Cookie] { stored.withLock { $0 } }

    /// Stores `cookie` at `now` (seconds since the epoch; nil: the clock's), replacing the one with the same name, domain and path; an expired one
    /// only removes that one.
    public func store(_ cookie: Cookie, now: Int? = nil) {
        let now = now ?? HTTPDate.now()
        stored.withLock { cookies in
            cookies.removeAll { $0.replaces(cookie) || $0.isExpired(at: now) }
            guard !cookie.isExpired(at: now) else { return }
            if cookies.count >= CookieJar.capacity { cookies.removeFirst() }
            cookies.append(cookie)
        }
    }

    /// Stores what each `Set-Cookie` field value in the answer to `url` sets, ignoring the
    /// ones RFC 6265 says to ignore (`Cookie.init(setCookie:from:now:)`), and, from a plain
    /// http answer, one that would shadow a `Secure` cookie (RFC 6265bis §5.7 step 16).
    public func store(setCookie values: [String], from url: HTTPURL, now: Int? = nil) {
        let now = now ?? HTTPDate.now()
        for value in values {
            guard let cookie = Cookie(setCookie: value, from: url, now: now) else { continue }
            if url.scheme != .https && stored.withLock({ $0.contains { cookie.shadows($0) } }) { continue }
            store(cookie, now: now)
        }
    }

    /// The `Cookie` field value for a request to `url` (RFC 6265 §5.4: longer paths first,
    /// then the order stored), nil when no cookie matches.
    public func header(for url: HTTPURL, now: Int? = nil) -> String? {
        let now = now ?? HTTPDate.now()
        let matching = stored.withLock { $0.filter { $0.matches(url, now: now) } }
        guard !matching.isEmpty else { return nil }
        let ordered = matching.enumerated().sorted { a, b in
            a.element.path.count != b.element.path.count ? a.element.path.count > b.element.path.count : a.offset < b.offset
        }
        return ordered.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// The cookies not expired at `now`, as a Netscape cookie file (`Cookie.netscapeText`).
    public func netscapeText(now: Int? = nil) -> String {
        let now = now ?? HTTPDate.now()
        return Cookie.netscapeText(cookies.filter { !$0.isExpired(at: now) })
    }
}
