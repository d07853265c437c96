/// What to download and how.
public struct DownloadOptions: Sendable {
    /// Parallel connections (1…64), fixed for the whole download; nil (the default) chooses
    /// the count as it goes: one connection first, more while each added one raises the
    /// measured throughput by a meaningful share, up to the session's per-host cap, and back
    /// down when they do not help. Small files use fewer: each segment is at least
    /// `minimumSegmentSize` bytes.
    public var segments: Int?
    /// The smallest range worth its own connection.
    public var minimumSegmentSize: Int64 = 1 << 20
    /// The output path; nil means the URL's file name in `directory`.
    public var output: String?
    /// Where a derived file name is placed.
    public var directory: String = "."
    /// Whether an existing file at the output path is replaced (default: refused,
    /// `.cannotCreateOutput`).
    public var replacesExistingFile: Bool = false
    /// Continue a file at the output path that has no journal (left by curl or wget): keep its
    /// bytes and fetch the rest (`-c`).
    public var continuePartial: Bool = false
    /// Whether an idle connection takes over the second half of the range with the longest
    /// estimated time to finish (on by default; off gives exactly one request per segment).
    public var stealsWork: Bool = true
    /// Whether an idle connection fetches the tail of a segment far slower than the rest in
    /// parallel; whichever delivers first keeps it (on by default).
    public var hedgesTails: Bool = true
    /// The time between checkpoints of the journal (nil: only when the transfer stops).
    public var checkpointPeriod: Duration? = .seconds(1)
    /// A PEM bundle trusted instead of the system store.
    public var caFile: String?
    /// Whether the server's certificate and host name are verified (on by default; off is
    /// curl's `-k`).
    public var verifiesCertificates: Bool = true
    /// The time to set up a connection, every step together: name lookup, TCP connect (over
    /// every address), proxy tunnel and TLS handshake (nil: no limit; zero or less is refused).
    public var connectionTimeout: Duration? = .seconds(15)
    /// The time a read or write may wait for the network before the attempt fails (nil: no
    /// limit; zero or less is refused).
    public var ioTimeout: Duration? = .seconds(30)
    /// The low-speed limit in bytes per second (curl's `--speed-limit`, aria2's
    /// `--lowest-speed-limit`); nil (the default): none. Measured as the average over the last
    /// `speedWindow`, from when a response's body starts (connecting and waiting for an
    /// answer have `connectionTimeout` and `ioTimeout`). A connection below its share of it (the
    /// limit ÷ the connections receiving) and under a quarter of its peers' median is dropped
    /// and its range goes to another connection (another server, when there is one), without
    /// using up `retries`; none is dropped under `rateLimit`. When the whole download is below
    /// the limit, it fails as a timeout (`.temporary`, exit 75) and keeps its journal. At least
    /// 1, and below `rateLimit`.
    public var speedLimit: Int64?
    /// The time over which `speedLimit` is measured, within `speedWindowRange` (a second to a
    /// day): a limit never judged would be no limit (leave `speedLimit` nil for that).
    public var speedWindow: Duration = .seconds(30)
    /// The allowed `speedWindow`s.
    public static let speedWindowRange: ClosedRange<Duration> = .seconds(1) ... .seconds(86_400)
    /// Attempts per segment after the first, for temporary failures.
    public var retries: Int = 5
    /// The most redirects the probe follows from one URL (curl's `--max-redirs`); 20 as wget's,
    /// 0 refuses every redirect.
    public var maximumRedirects: Int = 20
    /// The allowed `maximumRedirects`.
    public static let redirectRange = 0...1000
    /// Sent as `User-Agent` (empty: none is sent). A CR, LF or NUL in it is refused.
    public var userAgent: String = "fastget/\(Fastget.version)"
    /// Credentials, used when the URL carries none; sent only to the URL's origin, never after
    /// a redirect to another one. HTTP Basic, sent with the first request; HTTP Digest
    /// (RFC 7616: MD5, SHA-256, `qop=auth`) once a 401 offers Digest and not Basic. Not for a
    /// proxy: its credentials go in `proxy`'s URL (Basic only).
    public var user: String?
    /// The password for `user`.
    public var password: String?
    /// Extra request header fields, sent with every request; except that `Authorization`,
    /// `Cookie` and `Host` go only to the origin (scheme, host, port) of the download's URL,
    /// never after a redirect to another one nor to a mirror. A field fastget sends itself
    /// (`Host`, `User-Agent`, `Accept`, `Accept-Encoding`, `Authorization`) is replaced by
    /// these, and removed by one with an empty value (any other field with an empty value is
    /// not sent); `Host` cannot be removed. A `HeaderField` cannot hold what fastget must not
    /// send (see there).
    public var headerFields: [HeaderField] = []
    /// The cookies sent and the `Set-Cookie` answers stored (RFC 6265: by domain, path,
    /// `Secure` and expiry), within a download and across its redirects. They go only to the
    /// download's URL and the origins its redirects lead to, never to a mirror on another
    /// origin, and are never written to the journal. Share one jar among downloads to share
    /// their cookies; keep it to read or save them afterwards (`CookieJar.save(to:)`). Nil:
    /// each download keeps its own, empty at the start.
    public var cookieJar: CookieJar?
    /// Bytes per read; one buffer per connection comes from a pool allocated once.
    public var bufferSize: Int = 128 * 1024
    /// The time between progress reports.
    public var progressPeriod: Duration = .milliseconds(100)
    /// The HTTP proxy for every request (`http://[user:pass@]host:port`); https goes through it
    /// with `CONNECT`. Nil: the environment's `http_proxy`/`https_proxy`, when
    /// `proxyFromEnvironment` is on.
    public var proxy: String?
    /// Hosts reached directly: a comma-separated list of names, domains (`.example.com` or
    /// `example.com` covers its subdomains), addresses, or `*`. Nil: the environment's `no_proxy`
    /// when `proxyFromEnvironment` is on.
    public var noProxy: String?
    /// Read `http_proxy`, `https_proxy` (or `HTTPS_PROXY`) and `no_proxy` as curl does.
    public var proxyFromEnvironment: Bool = true
    /// Write the file, in order, to this open descriptor (a pipe, a terminal) instead of a file,
    /// while the segments still download in parallel through a bounded reorder window (about
    /// 2 × segments × 512 KiB). Nothing is written to disk, so nothing can resume; stealing and
    /// hedging are off. `checksum` is checked on the bytes as they go out.
    public var outputDescriptor: Int32?
    /// Bytes per second for the whole download, over all its connections; nil: no limit.
    public var rateLimit: Int64?
    /// The digest the file must have; checked before the final rename (mismatch: exit 76,
    /// the file stays as `NAME.part`).
    public var checksum: Checksum?
    /// Other URLs of the same file (mirrors): after each one's probe shows the same length and
    /// byte ranges, segments are fetched from all of them, each with its own `If-Range`; one
    /// that fails or lies is dropped for the run and the others take its ranges. The file's
    /// name, validator and resume come from the download's own URL.
    public var mirrors: [String] = []
    /// Also fetch from the mirrors the server announces (`Link: <…>; rel=duplicate`).
    public var mirrorsFromHeaders: Bool = true
    /// Without `checksum`: check the digest the server announces for the whole file
    /// (`Repr-Digest` or `Digest`, `RemoteResource.announcedDigest`) the same way.
    public var checksAnnouncedDigest: Bool = true
    /// Credentials by host (`--netrc`): used for the download's own URL when neither the URL
    /// nor `user` gives any, and, as those, sent only to that URL's origin.
    public var netrc: Netrc?
    /// wget's `-N`: when the output exists, ask the server whether the file changed since
    /// (`If-None-Match` with the ETag the file's completion mark remembers, else
    /// `If-Modified-Since` its modification time). Unchanged: nothing is fetched and the
    /// download completes at once. Changed: it is fetched and replaces the old file in one
    /// rename. Implies `replacesExistingFile` and `remoteTime`.
    public var timestamping: Bool = false
    /// Give the file the server's `Last-Modified` as its modification time (curl's `-R`).
    public var remoteTime: Bool = false
    /// Record the URL (without credentials) in the finished file's extended attribute
    /// `user.xdg.origin.url`, as curl's and wget's `--xattr` do. Off by default, as there.
    public var recordsOrigin: Bool = false
    /// Create the output's directory, and its parents, when it is missing.
    public var createsDirectories: Bool = false
    /// With a file already at the output path: leave it and succeed when it has the server's
    /// length, refuse otherwise (wget's `--no-clobber`); `replacesExistingFile` and `continuePartial` win.
    public var keepsExistingFile: Bool = false
    /// Connect over this address family only (curl's `-4`, `-6`); nil: any.
    public var addressFamily: AddressFamily?
    /// Addresses to connect to instead of resolving a host (curl's `--resolve`): `"host:port"`
    /// → an IP address. TLS still verifies the certificate for the host.
    public var resolve: [String: String] = [:]

    /// An IP version.
    public enum AddressFamily: Sendable {
        case ipv4, ipv6
    }

    /// The defaults: an automatic connection count, 5 retries, 15 s to connect, 30 s per read, verification on.
    public init() {}

    /// The allowed segment counts.
    public static let segmentRange = 1...64

    func validate() throws(FastgetError) {
        if let segments, !DownloadOptions.segmentRange.contains(segments) {
            throw FastgetError(.usage, "segments must be between 1 and 64 (got \(segments))")
        }
        guard retries >= 0 else { throw FastgetError(.usage, "retries must not be negative") }
        guard DownloadOptions.redirectRange.contains(maximumRedirects) else {
            throw FastgetError(.usage, "the redirect limit must be between 0 and \(DownloadOptions.redirectRange.upperBound)")
        }
        guard connectionTimeout.map({ $0 > .zero }) ?? true, ioTimeout.map({ $0 > .zero }) ?? true else {
            throw FastgetError(.usage, "timeouts must be positive")
        }
        if let speedLimit, speedLimit < 1 { throw FastgetError(.usage, "the speed limit must be at least 1 byte per second") }
        guard DownloadOptions.speedWindowRange.contains(speedWindow) else {
            throw FastgetError(.usage, "the speed window must be between 1 and 86400 seconds")
        }
        if let speedLimit, let rateLimit, speedLimit >= rateLimit {
            // Our own cap holds the download at or below the speed limit: it could only fail.
            throw FastgetError(.usage, "the speed limit (\(speedLimit) bytes/s) must be below the rate limit (\(rateLimit) bytes/s)")
        }
        guard checkpointPeriod.map({ $0 > .zero }) ?? true else { throw FastgetError(.usage, "the checkpoint period must be positive") }
        guard progressPeriod > .zero else { throw FastgetError(.usage, "the progress period must be positive") }
        if let rateLimit, rateLimit < 1024 { throw FastgetError(.usage, "the rate limit must be at least 1024 bytes per second") }
        guard minimumSegmentSize >= 1 else { throw FastgetError(.usage, "the minimum segment size must be at least 1 byte") }
        guard bufferSize >= 4096 else { throw FastgetError(.usage, "buffer size must be at least 4096 bytes") }
        if containsLineBreakOrNUL(userAgent) { throw FastgetError(.usage, "the user agent contains a line break or NUL byte") }
        if containsControlCharacter(userAgent) { throw FastgetError(.usage, "the user agent contains a control character") }
        for field in headerFields { // made through the deprecated `headers`, unchecked
            if let problem = UserHeaderField.problem(name: field.name, value: field.value) { throw FastgetError(.usage, problem) }
        }
        if headerFields.filter({ $0.name.lowercased() == "host" }).count > 1 { throw FastgetError(.usage, "the Host field is given twice") }
    }
}

/// The times as the engine counts them: seconds on the monotonic clock, `.infinity` for none.
extension DownloadOptions {
    var connectSeconds: Double { connectionTimeout?.seconds ?? .infinity }
    var ioSeconds: Double { ioTimeout?.seconds ?? .infinity }
    var speedSeconds: Double { speedWindow.seconds }
    var checkpointSeconds: Double { checkpointPeriod?.seconds ?? .infinity }
    var progressSeconds: Double { progressPeriod.seconds }
}

extension Duration {
    /// The duration in seconds (any duration: `components` would trap past Int64's seconds).
    var seconds: Double { self / .seconds(1) }

    /// `seconds` as a duration; nil for infinity or beyond what a duration holds (no limit), and
    /// NaN as zero (refused where a positive time is needed).
    init?(limit seconds: Double) {
        guard !seconds.isNaN else {
            self = .zero
            return
        }
        guard seconds.magnitude < 1e15 else {
            if seconds < 0 { self = .seconds(-1) } else { return nil }
            return
        }
        self = .seconds(seconds)
    }
}
