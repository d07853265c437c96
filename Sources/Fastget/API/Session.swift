/// What the downloads made with it share: connectors (with their TLS contexts, and so the TLS
/// sessions a new connection resumes), pools of idle keep-alive connections by origin, a cap
/// on the connections an automatic count opens to one host, and a limit on worker threads.
///
/// A `DownloadQueue` makes one for its downloads unless it is given one; a `Download` made
/// without one gets a private session whose idle connections close when its run ends. Give
/// several downloads (or queues) one session and a file fetched after another from the same
/// origin goes out on the connection the earlier one left idle, without a new TCP or TLS
/// handshake.
///
/// ```swift
/// let session = try Session(maximumConnectionsPerHost: 8)
/// for name in ["a.bin", "b.bin"] {
///     try Download(url: "https://example.com/\(name)", session: session).run()
/// }
/// session.closeIdleConnections()
/// ```
///
/// Connections are shared only between downloads whose options agree on what a connection is
/// made with (CA file, verification, proxy, timeouts), and only for their own origin. An idle
/// connection is closed rather than reused once it has waited `ConnectionPool.maximumIdle`
/// seconds (servers drop idle connections after a while; a reused one they dropped costs a
/// failed request). Every method may be called from any thread.
///
/// Threads: a running download has one coordinator thread (the caller's, in `run()`; one of
/// its own after `start()` or `result()`) and one worker thread per connection. The worker
/// threads of all the session's downloads together stay within `maximumWorkerThreads`: a
/// download gets more connections only while the session has threads free (a fixed count
/// too: it starts with fewer, and takes the rest as threads free up), except that a download
/// with none running always gets one, so that no download waits mid-run for another's end.
/// So N downloads running at once hold at most `maximumWorkerThreads` + N − 1 worker threads
/// and N coordinator threads. Downloads made without a session share one such limit for the
/// whole process. To bound N as well, run them in a `DownloadQueue`.
public final class Session: Sendable {
    /// The most connections that downloads with an automatic count (`DownloadOptions.segments`
    /// nil) hold at once to one host, together. A download always gets its first connection;
    /// fixed counts are not limited.
    public let maximumConnectionsPerHost: Int
    /// The most worker threads (one per connection) the session's downloads run at once,
    /// together; a download with none running gets one all the same (see above).
    public var maximumWorkerThreads: Int { workerThreads.limit }
    /// The allowed worker-thread limits.
    public static let workerThreadRange = 1...4096
    /// The limit a session has unless given another, and the one downloads made without a
    /// session share.
    public static let defaultWorkerThreads = ThreadAllowance.defaultLimit
    /// The worker threads, shared by the session's downloads.
    let workerThreads: ThreadAllowance

    private struct Route: Sendable {
        let connector: Connector
        let pool: ConnectionPool
    }

    private let routes = Locked<[String: Route]>([:])
    private let held = Locked<[String: Int]>([:])

    /// The allowed per-host caps.
    public static let connectionRange = 1...64

    /// - Throws: `.usage` for a cap outside `connectionRange` or a limit outside
    ///   `workerThreadRange`.
    public init(
        maximumConnectionsPerHost: Int = Session.defaultConnectionsPerHost, maximumWorkerThreads: Int = Session.defaultWorkerThreads
    ) throws(FastgetError) {
        guard Session.connectionRange.contains(maximumConnectionsPerHost) else {
            throw FastgetError(.usage, "the connections per host must be between 1 and 64 (got \(maximumConnectionsPerHost))")
        }
        guard Session.workerThreadRange.contains(maximumWorkerThreads) else {
            throw FastgetError(.usage, "the worker threads must be between 1 and 4096 (got \(maximumWorkerThreads))")
        }
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        workerThreads = ThreadAllowance(limit: maximumWorkerThreads)
    }

    private init(sharingThreads threads: ThreadAllowance) {
        maximumConnectionsPerHost = Session.defaultConnectionsPerHost
        workerThreads = threads
    }

    /// The per-host cap a session has unless given another.
    public static let defaultConnectionsPerHost = 16

    /// The private session of a download made without one: the default cap, and the worker
    /// threads of every such download in the process.
    static func standard() -> Session { Session(sharingThreads: .shared) }

    /// Closes every idle connection (those in use finish their requests first).
    public func closeIdleConnections() {
        for route in routes.withLock({ Array($0.values) }) { route.pool.removeAll() }
    }

    deinit { closeIdleConnections() }

    /// The connector and pool for connections made with `options` through `proxies`.
    func route(for options: DownloadOptions, proxies: ProxySettings) -> (Connector, ConnectionPool) {
        let key = [
            options.caFile ?? "-", options.verifiesCertificates ? "verify" : "insecure",
            String(options.connectSeconds.bitPattern, radix: 16), String(options.ioSeconds.bitPattern, radix: 16),
            proxies.identity, "\(options.addressFamily.map { "\($0)" } ?? "any")",
            options.resolve.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
        ].joined(separator: "\u{0}")
        let route = routes.withLock { routes in
            if let route = routes[key] { return route }
            let route = Route(
                connector: Connector(
                    connectTimeout: options.connectSeconds, ioTimeout: options.ioSeconds,
                    caFile: options.caFile, verifyPeer: options.verifiesCertificates, proxies: proxies,
                    family: options.addressFamily.map { $0 == .ipv4 ? SocketAddress.ipv4 : SocketAddress.ipv6 }, overrides: options.resolve),
                pool: ConnectionPool())
            routes[key] = route
            return route
        }
        return (route.connector, route.pool)
    }

    /// The share of the per-host cap for a download to `host`.
    func allowance(host: String) -> any ConnectionAllowance { HostAllowance(session: self, host: host) }

    /// Takes up to `count` connections to `host` within the cap; returns how many.
    func reserveConnections(host: String, wanting count: Int) -> Int {
        held.withLock { held in
            let granted = max(0, min(count, maximumConnectionsPerHost - held[host, default: 0]))
            held[host, default: 0] += granted
            return granted
        }
    }

    /// Gives back `count` connections to `host` taken with `reserveConnections`.
    func releaseConnections(host: String, count: Int) {
        held.withLock { held in
            let left = held[host, default: 0] - count
            held[host] = left > 0 ? left : nil
        }
    }

    private struct HostAllowance: ConnectionAllowance {
        let session: Session
        let host: String
        func reserve(_ count: Int) -> Int { session.reserveConnections(host: host, wanting: count) }
        func release(_ count: Int) { session.releaseConnections(host: host, count: count) }
    }
}
