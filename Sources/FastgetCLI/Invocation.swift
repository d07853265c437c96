import Fastget

/// What the command line asked for.
struct Invocation {
    var url: String?
    var options = DownloadOptions()
    var quiet = false
    var verbose = false
    var json = false
    /// `-i`: a file of URLs ("-": standard input), and `-j`: how many at once.
    var inputFile: String?
    var jobs = 3
    /// `--max-per-host` (once `--max-connections`): the most connections an automatic count opens to one host, over
    /// every download of the run.
    var maximumConnections = 16
    var showHelp = false
    /// The digest a finished download was checked against: `--checksum`, else the one the
    /// server announced.

    /// `--no-mirrors-from-headers`.
    var ignoresAnnouncedMirrors: Bool {
        get { !options.mirrorsFromHeaders }
        set { options.mirrorsFromHeaders = !newValue }
    }

    /// `--no-server-digest`.
    var ignoresServerDigest: Bool {
        get { !options.checksAnnouncedDigest }
        set { options.checksAnnouncedDigest = !newValue }
    }

    /// The session every download of this run shares (one per process).
    func session() throws(FastgetError) -> Session { try Session(maximumConnectionsPerHost: maximumConnections) }
    var showVersion = false
}
