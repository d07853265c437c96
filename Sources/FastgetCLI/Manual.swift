/// What the man page says besides the options, and what `--help` ends with: the examples, the
/// environment, the files and the configuration file, written once here. `ManPage` and
/// `HelpText` print them, and the README's examples are checked against `examples`.
enum Manual {
    /// One everyday task: the command line, and what it does in a few words.
    struct Example {
        let command: String
        let does: String
    }

    /// Ten everyday tasks, in the order the README and the man page show them; `--help` shows the
    /// first `helpExamples`.
    static let examples: [Example] = [
        .init(command: "fastget https://example.com/big.iso", does: "save ./big.iso over parallel connections"),
        .init(command: "fastget https://example.com/big.iso", does: "the same command again after Ctrl-C or a crash: resume"),
        .init(command: "fastget -d ~/Downloads https://example.com/big.iso", does: "save it in another directory"),
        .init(command: "fastget -o - https://example.com/src.tar.gz | tar xz", does: "stream it, in order, to a pipe"),
        .init(command: "fastget https://a.example.com/big.iso https://b.example.net/big.iso", does: "fetch ranges from two mirrors"),
        .init(command: "fastget -i urls.txt -j 4", does: "download a list, four files at once"),
        .init(command: "fastget -n 16 --limit-rate 20M https://example.com/big.iso", does: "16 connections, 20 MiB/s in all"),
        .init(command: "fastget -N https://example.com/data.csv", does: "fetch again only if it changed on the server"),
        .init(command: "fastget -u alice https://example.com/private.zip", does: "Basic credentials; asks for the password"),
        .init(command: "fastget --dry-run https://example.com/big.iso", does: "probe only: length, ranges, name, plan"),
    ]

    /// How many of `examples` `--help` ends with.
    static let helpExamples = 6

    /// An environment variable the command or the library reads, and what it changes.
    struct Variable {
        let names: String
        let meaning: String
    }

    static let environment: [Variable] = [
        .init(names: "http_proxy", meaning: "the proxy for http:// URLs, http://[USER:PASS@]HOST:PORT, as curl reads it; --proxy wins"),
        .init(names: "https_proxy, HTTPS_PROXY", meaning: "the proxy for https:// URLs (a CONNECT tunnel through it); --proxy wins"),
        .init(names: "no_proxy, NO_PROXY", meaning: "hosts reached directly, as --noproxy takes them; --noproxy wins"),
        .init(
            names: "SSL_CERT_FILE, SSL_CERT_DIR",
            meaning:
                "the CA bundle, or a directory of hashed certificates, trusted instead of OpenSSL's default; without them and without OpenSSL's default, the usual bundle paths of Debian, Fedora, Alpine and others are tried; --cacert wins"
        ),
        .init(
            names: "XDG_CONFIG_HOME", meaning: "the configuration file is $XDG_CONFIG_HOME/fastget/config (default ~/.config/fastget/config)"),
        .init(names: "HOME", meaning: "where ~/.config/fastget/config and ~/.netrc are"),
        .init(names: "COLUMNS", meaning: "the width of the progress display when the terminal does not tell it (default 80)"),
        .init(
            names: "FASTGET_TRACE",
            meaning:
                "a new file that receives the automatic connection count's inputs, one line per tick (for a bug report about -n auto; nothing is written when the file exists)"
        ),
    ]

    /// A file fastget reads or leaves, and what it is.
    struct File {
        let path: String
        let meaning: String
    }

    static let files: [File] = [
        .init(path: "NAME.part", meaning: "the file while it downloads (preallocated from 1 MiB on); renamed to NAME when every byte is in"),
        .init(
            path: "NAME.fastget",
            meaning:
                "the journal: which bytes of which version of which URL are on disk; never claims a byte that is not; removed when the file is complete"
        ),
        .init(path: "NAME.fastget.lock", meaning: "held while a download owns NAME: a second download of it exits 73"),
        .init(
            path: "NAME.aria2, NAME.st",
            meaning: "aria2's and axel's state files: with -c, only the pieces they mark done are kept"),
        .init(path: "~/.config/fastget/config", meaning: "the configuration file (see CONFIGURATION FILE)"),
        .init(path: "~/.netrc", meaning: "credentials by host, read with --netrc (and when it is there); --netrc-file names another"),
    ]

    /// The CONFIGURATION FILE section, a paragraph per element.
    static let configuration: [String] = [
        "$XDG_CONFIG_HOME/fastget/config (else ~/.config/fastget/config) holds long options, one per line, as segments = 16 or a bare quiet (overwrite = false is allowed too); # starts a comment; lines end in LF or CRLF. It is read before the command line, which wins; --no-config skips it.",
        "An unknown key or a bad value (a line break or NUL inside a user-agent or header value too) is a usage error (exit 64) naming the file and the line: fastget: error: ~/.config/fastget/config:2: unknown option 'segmnts'. It must be a regular file of at most 1 MiB: a FIFO, a device or a larger file is refused at once (exit 64).",
        "Example:",
    ]

    /// The example configuration file the section shows.
    static let configurationExample = [
        "# ~/.config/fastget/config",
        "segments = 16",
        "limit-rate = 50M",
        "user-agent = my-mirror-bot/1.0",
        "quiet",
    ]
}
