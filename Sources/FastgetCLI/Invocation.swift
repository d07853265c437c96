import Fastget

/// What the command line asked for.
struct Invocation {
    var url: String?
    var options = DownloadOptions()
    /// `-k`: the options' `verifiesCertificates`, turned around for the flag that clears it.
    var insecure: Bool {
        get { !options.verifiesCertificates }
        set { options.verifiesCertificates = !newValue }
    }
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
    /// `--netrc` (`~/.netrc`) or `--netrc-file FILE`: where credentials by host are read.
    var netrcFile: String?
    var netrcRequired = false
    /// `--netrc`: `~/.netrc`, used when it is there.
    var usesNetrc: Bool {
        get { netrcFile != nil }
        set { netrcFile = newValue ? ConfigurationFile.home.map { $0 + "/.netrc" } : nil }
    }
    /// How many of `options.headerFields` the configuration file gave (they come first); nil while
    /// the file is read. A command-line field of the same name replaces them.
    var configurationHeaderCount: Int?
    /// `--no-config`: the configuration file is not read (`ConfigurationFile`).
    var ignoresConfiguration = false
    /// `--completion SHELL`: print that shell's completion script.
    var completionShell: String?
    /// `--dry-run`, `--spider`: probe and tell, download nothing.
    var dryRun = false
    /// `--max-time`: seconds the whole run may take; then it stops as Ctrl-C does (exit 75).
    var maximumTime = Double.infinity
    /// Whether `-d` was given on the command line (not by the configuration file): an
    /// absolute `-o` beside it is a mistake, not a preference.
    var directoryGiven = false
    /// `--no-progress`, `-nv`: no progress display; notices, the summary and errors are printed.
    var noProgress = false
    /// `-w FORMAT`: printed on standard output when the run ends (`WriteOut`).
    var writeOut: String?
    /// `--load-cookies FILE`, `-b FILE`: Netscape cookie files read when the run starts;
    /// `optional`: `-b`'s, which may not exist yet (curl's first run with `-b F -c F`).
    var cookieFiles: [(path: String, optional: Bool)] = []
    /// Any cookie option was given: the jar is on, even with no file (`-b ''`).
    var cookiesGiven = false
    /// `--save-cookies FILE`: where the cookies are written when the run ends.
    var cookieSavePath: String?
    /// Set by options accepted for another tool's habit that change nothing here (`-L`, `-O`).
    var acceptedHabit = false

    /// `--no-mirrors-from-headers`.
    var ignoresAnnouncedMirrors: Bool {
        get { !options.mirrorsFromHeaders }
        set { options.mirrorsFromHeaders = !newValue }
    }

    /// `-4`, `-6`: the last one given wins.
    var ipv4Only: Bool {
        get { options.addressFamily == .ipv4 }
        set { options.addressFamily = newValue ? .ipv4 : nil }
    }
    var ipv6Only: Bool {
        get { options.addressFamily == .ipv6 }
        set { options.addressFamily = newValue ? .ipv6 : nil }
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
