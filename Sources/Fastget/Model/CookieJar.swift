/// The cookies of one or more downloads (RFC 6265): what the `Set-Cookie` fields of their
/// answers stored, and what a cookie file gave. Each request gets the ones that match its
/// host, path and scheme, so a cookie never goes to another site. Thread-safe: the
/// connections of a download, and the downloads that share it (`DownloadOptions.cookieJar`),
/// use it at once.
///
/// It lives in memory only: nothing of it is written to a download's journal. `save(to:)`
/// writes it to a cookie file when asked.
///
/// Bounded, so that no server can make it grow, or push out what the user gave: at most
/// `capacity` cookies and `byteCapacity` bytes in all, `domainCapacity` set by servers for one
/// domain (beyond it, that domain's cookie set longest ago goes). A cookie given (a file's,
/// `init(_:)`, `load(_:now:)`, `store(_:now:)`) is never pushed out to make room for a
/// server's: the server's is refused instead.
public final class CookieJar: Sendable {
    /// The most cookies it keeps.
    public static let capacity = 3000
    /// The most cookies servers' answers keep for one domain.
    public static let domainCapacity = 50
    /// The most bytes its cookies take in a cookie file (`Cookie.fileSize`): what it saves
    /// stays under the 1 MiB a cookie file is read up to.
    public static let byteCapacity = (1 << 20) - 1024
    /// The longest `Cookie` field value sent (8 KiB); the least specific cookies beyond it are
    /// left out, since servers refuse a longer head (431) and the download with it.
    public static let headerCapacity = 8192

    /// A cookie's identity: another with the same takes its place (RFC 6265 §5.3 step 11).
    private struct Key: Hashable {
        let name: String
        let domain: String
        let path: String
        init(_ cookie: Cookie) { (name, domain, path) = (cookie.name, cookie.domain, cookie.path) }
    }

    private struct Entry {
        var cookie: Cookie
        /// When it was stored, counted: the order of the `Cookie` field and of the file.
        var order: Int
        /// Given by the user (a file, the embedder), not set by a server.
        var given: Bool
    }

    private struct Contents {
        var entries: [Key: Entry] = [:]
        var next = 0
        var bytes = 0
        /// How many cookies servers set for each domain.
        var serverCounts: [String: Int] = [:]

        mutating func remove(_ key: Key) {
            guard let entry = entries.removeValue(forKey: key) else { return }
            bytes -= entry.cookie.fileSize
            if !entry.given { serverCounts[key.domain, default: 1] -= 1 }
        }

        mutating func purge(at now: Int) {
            for (key, entry) in entries where entry.cookie.isExpired(at: now) { remove(key) }
        }

        /// Stores `cookie`; false when it was refused for want of room.
        mutating func insert(_ cookie: Cookie, given: Bool, now: Int) -> Bool {
            let key = Key(cookie)
            guard !cookie.isExpired(at: now) else {
                remove(key)
                return true
            }
            let old = entries[key]
            let count = entries.count - (old == nil ? 0 : 1)
            let domainFull = !given && serverCounts[key.domain, default: 0] - (old?.given == false ? 1 : 0) >= CookieJar.domainCapacity
            let evicted = domainFull ? oldestSetByServer(in: key.domain, except: key) : nil
            if domainFull && evicted == nil { return false }
            let freed = (old?.cookie.fileSize ?? 0) + (evicted.flatMap { entries[$0]?.cookie.fileSize } ?? 0)
            guard count - (evicted == nil ? 0 : 1) < CookieJar.capacity, bytes - freed + cookie.fileSize <= CookieJar.byteCapacity
            else { return false }
            remove(key)
            if let evicted { remove(evicted) }
            entries[key] = Entry(cookie: cookie, order: next, given: given)
            next += 1
            bytes += cookie.fileSize
            if !given { serverCounts[key.domain, default: 0] += 1 }
            return true
        }

        private func oldestSetByServer(in domain: String, except key: Key) -> Key? {
            entries.filter { $0.key.domain == domain && !$0.value.given && $0.key != key }.min { $0.value.order < $1.value.order }?.key
        }
    }

    private let stored: Locked<Contents>

    /// A jar holding `cookies` (a later one with the same name, domain and path replaces an
    /// earlier one; those beyond its capacity are left out: `load(_:now:)` counts them).
    public init(_ cookies: [Cookie] = []) {
        stored = Locked(Contents())
        load(cookies)
    }

    /// Adds the cookies given (a cookie file's), in order, at `now` (nil: the clock's); returns
    /// how many were left out for want of room (`capacity`, `byteCapacity`), expired ones not
    /// counted.
    @discardableResult public func load(_ cookies: [Cookie], now: Int? = nil) -> Int {
        let now = now ?? HTTPDate.now()
        return stored.withLock { contents in
            contents.purge(at: now)
            return cookies.reduce(0) { refused, cookie in refused + (contents.insert(cookie, given: true, now: now) ? 0 : 1) }
        }
    }

    /// The cookies it holds, expired ones too until more are stored, in the order stored.
    public var cookies: [Cookie] { stored.withLock { $0.entries.values.sorted { $0.order < $1.order }.map(\.cookie) } }

    /// Stores `cookie`, given by the user, at `now` (seconds since the epoch; nil: the
    /// clock's), replacing the one with the same name, domain and path; an expired one only
    /// removes that one. Nothing happens when the jar is full.
    public func store(_ cookie: Cookie, now: Int? = nil) {
        let now = now ?? HTTPDate.now()
        _ = stored.withLock { $0.insert(cookie, given: true, now: now) }
    }

    /// Stores what each `Set-Cookie` field value in the answer to `url` sets, ignoring the
    /// ones RFC 6265 says to ignore (`Cookie.init(setCookie:from:now:)`), and, from a plain
    /// http answer, one that would shadow a `Secure` cookie (RFC 6265bis §5.7 step 16).
    public func store(setCookie values: [String], from url: HTTPURL, now: Int? = nil) {
        let now = now ?? HTTPDate.now()
        let cookies = values.compactMap { Cookie(setCookie: $0, from: url, now: now) }
        guard !cookies.isEmpty else { return }
        stored.withLock { contents in
            contents.purge(at: now)
            for cookie in cookies {
                if url.scheme != .https && contents.entries.values.contains(where: { cookie.shadows($0.cookie) }) { continue }
                _ = contents.insert(cookie, given: false, now: now)
            }
        }
    }

    /// The `Cookie` field value for a request to `url` (RFC 6265 §5.4: longer paths first,
    /// then the order stored), at most `headerCapacity` bytes; nil when no cookie matches.
    public func header(for url: HTTPURL, now: Int? = nil) -> String? {
        let now = now ?? HTTPDate.now()
        let matching = stored.withLock { $0.entries.values.filter { $0.cookie.matches(url, now: now) } }
        let ordered = matching.sorted { a, b in
            a.cookie.path.utf8.count != b.cookie.path.utf8.count ? a.cookie.path.utf8.count > b.cookie.path.utf8.count : a.order < b.order
        }
        var field = ""
        for entry in ordered {
            let pair = entry.cookie.name + "=" + entry.cookie.value
            let length = field.utf8.count + (field.isEmpty ? 0 : 2) + pair.utf8.count
            guard length <= CookieJar.headerCapacity else { break }
            field += (field.isEmpty ? "" : "; ") + pair
        }
        return field.isEmpty ? nil : field
    }

    /// The cookies not expired at `now`, as a Netscape cookie file (`Cookie.netscapeText`).
    public func netscapeText(now: Int? = nil) -> String {
        let now = now ?? HTTPDate.now()
        return Cookie.netscapeText(cookies.filter { !$0.isExpired(at: now) })
    }
}
