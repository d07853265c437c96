import Fastget

/// One option of the command line, declared once: its names, the value it takes (and the range
/// of a number), and its line of `--help`. `ArgumentParser` parses with `all`, `HelpText` lists
/// it: nothing about an option is spelled anywhere else.
struct CommandLineOption {
    /// What follows the option, and where it goes.
    enum Kind {
        /// No value (`-q`, `--json`): sets a switch; `--json=1` or `-q1` is a usage error.
        case flag(WritableKeyPath<Invocation, Bool>)
        /// A whole number within the range (`--help` shows a range with an upper bound).
        case count(ClosedRange<Int>, WritableKeyPath<Invocation, Int>)
        /// Seconds, at least `OptionValue.minimumSeconds`.
        case seconds(WritableKeyPath<Invocation, Double>)
        /// Seconds as a library time, at least `OptionValue.minimumSeconds`; a huge number is
        /// no limit (nil).
        case duration(WritableKeyPath<Invocation, Duration?>)
        /// Bytes per second, at least `OptionValue.minimumRate`, with an optional k, M or G.
        case rate(WritableKeyPath<Invocation, Int64?>)
        /// Text that the function checks and stores; it gets the option's name as given, for
        /// its error messages.
        case text((inout Invocation, _ text: String, _ name: String) throws(UsageError) -> Void)
    }

    /// `n` for `-n`; nil when there is only the long name.
    let short: Character?
    /// `segments` for `--segments`.
    let long: String
    /// What `--help` calls the value ("N", "FILE"); empty for a flag.
    let value: String
    let kind: Kind
    /// The `--help` description; a count with an upper bound adds its range (", 1-64"), then
    /// comes the note in parentheses.
    let help: String
    let note: String?
    /// Other names it answers to, spelled in full (`--retry`, `-t`, `-nc`): an earlier name or
    /// another tool's for the same thing. Not listed in `--help` (the man page lists them).
    let aliases: [String]

    init(
        _ short: Character?, _ long: String, _ value: String, _ kind: Kind, _ help: String, note: String? = nil,
        aliases: [String] = []
    ) {
        self.short = short
        self.long = long
        self.aliases = aliases
        self.value = value
        self.kind = kind
        self.help = help
        self.note = note
    }

    /// A flag: no value.
    init(_ short: Character?, _ long: String, _ kind: Kind, _ help: String, note: String? = nil, aliases: [String] = []) {
        self.init(short, long, "", kind, help, note: note, aliases: aliases)
    }

    /// Every option, in the order of `--help`.
    static var all: [CommandLineOption] { downloading + connecting + reporting }

    /// What to fetch and where it goes.
    private static var downloading: [CommandLineOption] {
        [
            .init(
                "n", "segments", "N", .text(OptionValue.segments),
                "parallel connections, 1-64, or auto", note: "default auto; at least 1 MiB each", aliases: ["--split"]),
            .init(
                nil, "max-per-host", "N", .count(Session.connectionRange, \.maximumConnections),
                "with auto: at most N connections to one host", note: "default \(Invocation().maximumConnections); -x N",
                aliases: ["--max-connections", "--max-connection-per-server"]),
            .init(
                "i", "input-file", "FILE", .text(OptionValue.inputFile),
                "download every URL in FILE, one per line", note: "- reads standard input"),
            .init(
                "j", "jobs", "K", .count(1...64, \.jobs), "with -i: K downloads at once", note: "default \(Invocation().jobs)",
                aliases: ["--max-concurrent-downloads"]),
            .init(
                nil, "min-split-size", "SIZE", .text(OptionValue.minimumSplitSize), "no segment smaller than SIZE, 1M-1G (aria2's -k SIZE)",
                note: "default 1M"),
            .init(
                "o", "output", "FILE", .text(OptionValue.output), "save as FILE; - writes the file to standard output, in order",
                aliases: ["--output-document", "--out"]),
            .init(
                "d", "directory", "DIR", .text(OptionValue.directory), "save in DIR, created if missing; -o FILE: DIR/FILE",
                note: "default: .", aliases: ["-P", "--directory-prefix", "--output-dir", "--dir"]),
            .init(
                nil, "overwrite", .flag(\.options.replacesExistingFile), "replace an existing file",
                note: "default: refuse, exit \(ExitStatus.of(.cannotCreateOutput))", aliases: ["--allow-overwrite=true"]),
            .init(
                "c", "continue", .flag(\.options.continuePartial), "continue a partial file left without a journal",
                note: "e.g. by curl or wget"),
            .init("C", "continue-at", "-", .text(OptionValue.continueAt), "the same as -c (curl's -C -)"),
            .init(
                nil, "no-clobber", .flag(\.options.keepsExistingFile), "leave an existing file of the server's length, and exit 0",
                aliases: ["-nc"]),
            .init(nil, "create-dirs", .flag(\.options.createsDirectories), "create the directories -o names when missing"),
            .init(
                "N", "timestamping", .flag(\.options.timestamping), "fetch an existing file again only if it changed on the server"),
            .init("R", "remote-time", .flag(\.options.remoteTime), "give the file the server's Last-Modified time"),
            .init(nil, "xattr", .flag(\.options.recordsOrigin), "record the URL in the file's user.xdg.origin.url attribute"),
            .init(
                "H", "header", "'N: V'", .text(OptionValue.header), "send this header field, replacing fastget's",
                note: "repeatable; 'N:' removes it"),
            .init(
                "A", "user-agent", "TEXT", .text(OptionValue.userAgent),
                "send TEXT as User-Agent", aliases: ["-U"]),
            .init(
                "b", "cookie", "DATA", .text(CookieOptions.cookie), "send 'N=V; N2=V2' as cookies; no '=': a cookie file"),
            .init(nil, "load-cookies", "FILE", .text(CookieOptions.loadCookies), "read cookies from FILE (Netscape format)"),
            .init(
                nil, "save-cookies", "FILE", .text(CookieOptions.saveCookies), "write the cookies to FILE at the end (mode 0600; -: standard output)",
                aliases: ["--cookie-jar"]),
            .init(
                nil, "keep-session-cookies", .flag(\.acceptedHabit),
                "session cookies are saved anyway (wget's habit)"),
            .init("e", "referer", "URL", .text(CookieOptions.referer), "send URL as Referer with every request"),
            .init(
                nil, "digest", .flag(\.acceptedHabit), "-u answers Digest by itself (curl's habit)", aliases: ["--anyauth", "--basic"]),
            .init(
                "u", "user", "USER:PASS", .text(OptionValue.user), "HTTP Basic or Digest credentials",
                note: "sent only to the URL's own host"),
            .init(nil, "netrc", .flag(\.usesNetrc), "take credentials for the URL's host from ~/.netrc"),
            .init(nil, "netrc-file", "FILE", .text(OptionValue.netrcFile), "take credentials from FILE, as --netrc does"),
            .init(
                nil, "limit-rate", "RATE", .rate(\.options.rateLimit), "at most RATE bytes per second in total",
                note: "suffixes k, M, G", aliases: ["--max-download-limit", "--max-overall-download-limit"]),
            .init(
                nil, "checksum", "A=HEX", .text(OptionValue.checksum), "check the file's sha-256, sha-512, sha-1 or md5",
                note: "default: the server's"),
            .init(nil, "no-server-digest", .flag(\.ignoresServerDigest), "do not check the server's Repr-Digest or Digest"),
            .init(
                nil, "no-mirrors-from-headers", .flag(\.ignoresAnnouncedMirrors),
                "ignore the mirrors the server names (Link: rel=duplicate)"),
        ]
    }

    /// How to reach the server.
    private static var connecting: [CommandLineOption] {
        let defaults = DownloadOptions()
        return [
            .init(
                nil, "proxy", "URL", .text { invocation, text, _ in invocation.options.proxy = text },
                "use this HTTP proxy, http://[USER:PASS@]HOST:PORT", note: "default: http_proxy",
                aliases: ["-x"]),
            .init(
                nil, "noproxy", "LIST", .text { invocation, text, _ in invocation.options.noProxy = text },
                "hosts reached directly: names, .domains, addresses, *", note: "default: no_proxy"),
            .init(
                nil, "resolve", "H:P:ADDR", .text(OptionValue.resolve), "connect to ADDR for host H, port P",
                note: "repeatable; TLS still checks H"),
            .init("4", "ipv4", .flag(\.ipv4Only), "connect over IPv4 only"),
            .init("6", "ipv6", .flag(\.ipv6Only), "connect over IPv6 only"),
            .init(
                nil, "cacert", "FILE", .text { invocation, text, _ in invocation.options.caFile = text },
                "trust the CA certificates in FILE (PEM) instead of the system store", aliases: ["--ca-certificate"]),
            .init(
                "k", "insecure", .flag(\.insecure), "do not verify the server's certificate or host name",
                note: "-k SIZE: aria2's", aliases: ["--no-check-certificate", "--check-certificate=false"]),
            .init(
                nil, "connect-timeout", "S", .duration(\.options.connectionTimeout),
                "seconds to connect: name lookup, TCP, proxy tunnel, TLS", note: "default \(whole(defaults.connectionTimeout))"),
            .init(
                nil, "timeout", "S", .duration(\.options.ioTimeout), "seconds a read may wait for data before retrying",
                note: "default \(whole(defaults.ioTimeout))", aliases: ["-T"]),
            .init(
                "Y", "speed-limit", "RATE", .text(OptionValue.speedLimit),
                "drop a crawling connection; all under RATE/s for -y: exit 75", note: "off",
                aliases: ["--lowest-speed-limit"]),
            .init(
                "y", "speed-time", "S", .text(OptionValue.speedTime), "seconds -Y is measured over, at most a day",
                note: "default \(whole(defaults.speedWindow)); alone: 1 byte/s"),
            .init(
                nil, "retries", "N", .count(0...Int.max, \.options.retries),
                "retries of the probe and each segment on temporary failures", note: "default \(defaults.retries)",
                aliases: ["--retry", "--tries", "-t"]),
            .init(
                nil, "max-redirs", "N", .count(DownloadOptions.redirectRange, \.options.maximumRedirects), "follow at most N redirects",
                note: "default \(defaults.maximumRedirects)", aliases: ["--max-redirect"]),
            .init(
                "m", "max-time", "S", .seconds(\.maximumTime), "stop after S seconds in all, keeping what is in",
                note: "exit 75; rerun to resume; aria2's -m N is --retries N"),
            .init(
                nil, "checkpoint-interval", "S", .duration(\.options.checkpointPeriod), "seconds between journal checkpoints",
                note: "default \(whole(defaults.checkpointPeriod))"),
        ]
    }

    /// What is printed.
    private static var reporting: [CommandLineOption] {
        [
            .init("q", "quiet", .flag(\.quiet), "print nothing but errors", note: "-s N: aria2's -n", aliases: ["-s", "--silent"]),
            .init(
                nil, "no-progress", .flag(\.noProgress), "no progress display; notices, summary and errors stay",
                aliases: ["-nv", "--no-verbose", "--no-progress-meter"]),
            .init("v", "verbose", .flag(\.verbose), "log requests, retries, steals, hedges, checkpoints and TLS handshakes"),
            .init(nil, "json", .flag(\.json), "events as JSON lines on stdout instead of the progress display"),
            .init(
                nil, "dry-run", .flag(\.dryRun), "probe only: print URL, length, ranges, validator, name, plan, journal",
                aliases: ["--spider", "-I", "--head"]),
            .init(
                "w", "write-out", "FORMAT", .text(OptionValue.writeOut), "print FORMAT at the end: curl's %{http_code}, %{time_total}...",
                note: "or --json"),
            .init("L", "location", .flag(\.acceptedHabit), "follow redirects (always on: accepted for curl's habit)"),
            .init(
                "O", "remote-name", .flag(\.acceptedHabit), "save under the URL's name (the default); -O FILE, -O -: wget's -o"),
            .init(
                "J", "remote-header-name", .flag(\.acceptedHabit), "name the file by Content-Disposition (the default)",
                aliases: ["--content-disposition"]),
            .init("f", "fail", .flag(\.acceptedHabit), "fail on an HTTP error (always: accepted for curl's habit)"),
            .init("S", "show-error", .flag(\.acceptedHabit), "show errors (always, even with -q: accepted for curl's -sS)"),
            .init(nil, "no-config", .flag(\.ignoresConfiguration), "do not read ~/.config/fastget/config"),
            .init("h", "help", .flag(\.showHelp), "print this help"),
            .init(
                nil, "completion", "SHELL", .text(OptionValue.completion), "print the completion script for bash, zsh or fish"),
            .init("V", "version", .flag(\.showVersion), "print the versions of fastget and OpenSSL"),
        ]
    }

    /// Whether `name` (`-n` or `--segments`) is this option.
    func matches(_ name: String) -> Bool {
        name == "--" + long || aliases.contains(name) || short.map { name == "-" + String($0) } ?? false
    }

    var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    /// Stores the option's `value` (nil for a flag, or when none was attached to it) in
    /// `invocation`; `name` is the option as given.
    func apply(_ value: String?, name: String, to invocation: inout Invocation) throws(UsageError) {
        guard let value else {
            guard case .flag(let key) = kind else { throw UsageError(message: "option \(name) needs a value") }
            invocation[keyPath: key] = true
            return
        }
        switch kind {
        case .flag:
            throw UsageError(message: "option \(name) takes no value")
        case .count(let range, let key):
            invocation[keyPath: key] = try OptionValue.count(value, in: range, for: name)
        case .seconds(let key):
            invocation[keyPath: key] = try OptionValue.seconds(value, for: name)
        case .duration(let key):
            invocation[keyPath: key] = OptionValue.duration(try OptionValue.seconds(value, for: name))
        case .rate(let key):
            invocation[keyPath: key] = try OptionValue.rate(value, for: name)
        case .text(let store):
            try store(&invocation, value, name)
        }
    }

    /// The column where `--help` starts a description (and its continuation lines).
    static let descriptionColumn = 26

    /// `  -n, --segments N`: the names as `--help` shows them, from column 3.
    var helpNames: String {
        var names = "  " + (short.map { "-\($0), " } ?? "    ") + "--" + long
        if !value.isEmpty { names += " " + value }
        return names
    }

    /// `parallel connections, 1-64, or auto (default auto; at least 1 MiB each)`: the help,
    /// a count's range when it has an upper bound, then the note in parentheses.
    var description: String {
        var text = help
        if case .count(let range, _) = kind, range.upperBound < Int.max {
            text += ", \(range.lowerBound)-\(range.upperBound)"
        }
        if let note { text += " (\(note))" }
        return text
    }

    /// `  -n, --segments N  parallel connections, 1-64, or auto (default auto; …)`: the names
    /// and the description on one line, unwrapped (`HelpText` wraps it).
    var helpLine: String { helpNames + "  " + description }

    /// A default number of seconds as `--help` shows it: 15, or 0.5.
    private static func whole(_ time: Duration?) -> String {
        guard let time else { return "none" }
        return whole(time / .seconds(1))
    }

    private static func whole(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : "\(seconds)"
    }
}
