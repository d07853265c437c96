/// The man page's reference text for the options whose line in the table cannot say it all,
/// by long name: `ManPage` prints it below the option's own line; a test checks that every key
/// is an option of `CommandLineOption.all`.
enum OptionDetails {
    static let byOption: [String: [String]] = [
        "max-per-host": [
            "with auto: at most N connections to one host, over every download of the run; with mirrors, the count may grow to N on each host (default 16, 1-64)"
        ],
        "input-file": [
            "download every URL in FILE, one per line (- reads standard input; blank lines and # comments skipped; LF or CRLF line ends; FILE may be a pipe or FIFO, read as lines arrive, and Ctrl-C stops the wait for it; a line longer than 64 KiB is refused, exit 64, and ends the reading; read as downloads end, at most 4 x K + 16 not ended at a time, so a list of millions runs in a few MiB), through the library's download queue; exit 0 when all completed, else the first failure's code (130 when interrupted: the same command resumes the unfinished files and counts the finished ones as done)"
        ],
        "jobs": [
            "with -i: K downloads at once, 1-64 (default 3); each still uses -n segments, and they share keep-alive connections and TLS sessions to each origin"
        ],
        "output": [
            "save as FILE (default: the name the server's Content-Disposition gives - filename* (RFC 8187) before filename - else the URL's last path segment, percent-decoded; always reduced to a safe base name: no /, .., NUL or control characters, no bidirectional controls or other invisible format characters (Unicode category Cf: U+200B-U+200F, U+202A-U+202E, U+2066-U+206F, U+FEFF, U+00AD, tag characters U+E0000-U+E007F, ...: evil\\u202Egpj.exe would read as evilexe.jpg); index.html when nothing is left. A server's name also loses its leading dots, so it cannot plant a hidden file such as .bashrc; if nothing is left, the URL names the file)",
            "-o -: write the file to standard output, in order, while the segments still download in parallel (a reorder window of about 2 x segments x 512 KiB: a 64 MiB file at N = 8 peaks below 40 MiB RSS; auto means 8 here, or --max-per-host if lower); nothing is written to disk, so nothing resumes; --checksum is checked on the bytes as they go out; a reader slower than the download (or one that reads nothing) never holds Ctrl-C or --max-time, and \"stopped after N\" counts the bytes that went out",
            "-o DEVICE: an output that exists and is not a regular file - a character device (-o /dev/null, the speed-test idiom), a FIFO, /dev/stdout//dev/stderr - is written like -o -: in order, segmented, no .part, journal or lock file beside it; --overwrite and -c never replace, rename or truncate it; a FIFO without a reader is waited for (Ctrl-C stops the wait); a block device is refused (exit 73)",
        ],
        "timestamping": [
            "when the output exists, ask the server whether the file changed: If-None-Match with the ETag remembered from the download that made it (its completion mark), if the file still has the mark's length and modification time; else, as wget does, a probe: the file is unchanged when it is as long as the server's and not older than its Last-Modified; unchanged: nothing is fetched, exit 0; changed: it is downloaded and replaces the old file in one rename. The question goes to the first URL only: when it cannot be reached, that error ends the run (a mirror cannot say whether the file changed). Implies --overwrite and -R"
        ],
        "remote-time": [
            "give the file the server's Last-Modified as its modification time (off by default, as in curl: the time is when it was downloaded; -N turns it on)"
        ],
        "xattr": [
            "as curl's and wget's --xattr: once the file is complete, the URL as given (without credentials) goes in its extended attribute user.xdg.origin.url; off by default, as there. Where the file system keeps no user attributes, nothing is recorded"
        ],
        "cookie": [
            "cookies follow RFC 6265 within a download and across its redirects: domain, path, Secure, host-only, expiry; they go only to the download's URL and the origins its redirects lead to, never to another site, a mirror on another origin or the journal; -H 'Cookie:' sends none",
            "refused: a Domain that is a public suffix (co.uk, github.io: a snapshot of 186 common suffixes, not the full list), a plain http answer replacing a Secure cookie; at most 3000 cookies, 50 per domain from servers, 1 MiB saved, 8 KiB sent",
        ],
        "header": [
            "send this header field with every request (repeatable). As in curl, a field fastget sends itself (Host, User-Agent, Accept, Accept-Encoding, Authorization) is replaced by yours - the last one you give, sent once - and -H 'Name:' removes it (Host cannot be removed); a field on the command line replaces the configuration file's fields of that name (-A its User-Agent); fields fastget must set to stay correct are refused, exit 64, with the reason: Range, If-Range (segments and resume), If-None-Match, If-Modified-Since (a 304 is no file: use -N), Content-Length, Transfer-Encoding (no request has a body), Connection (fastget keeps connections), Proxy-Authorization (it would reach the server, not the proxy: put the credentials in --proxy's URL). Authorization, Cookie and Host go only to the URL's own origin (scheme, host, port), never after a redirect elsewhere nor to a mirror, as curl does. A CR, LF, NUL or other control character (any but tab) is refused (exit 64)"
        ],
        "user": [
            "HTTP credentials, sent only to the URL's own origin (URL userinfo wins): over https as Basic with the first request; over http only once a 401 asks, as Digest (RFC 7616: MD5, SHA-256, qop=auth) when offered, else Basic; over https, Digest when a 401 offers only that; without :PASS the password is asked for on the terminal, without echo, and refused (exit 64) where there is none"
        ],
        "netrc": [
            "take credentials (sent as -u sends them) for the URL's host from ~/.netrc (used when it is there) or FILE (must be readable), as curl reads it (LF or CRLF line ends; a regular file of at most 1 MiB, else exit 64 at once, never a wait on a FIFO): machine HOST login USER password PASS, a default entry, quoted tokens, macdef skipped; the URL's own user info or -u win; sent only to the URL's own origin, never after a redirect elsewhere, never to mirrors; a file others can read gets a warning"
        ],
        "checksum": [
            "sha-256, sha-512, sha-1 or md5 of the file, checked before the rename; a mismatch exits 76 and leaves NAME.part (a rerun fetches it anew). Without it, the digest the server announces for the whole file is checked the same way: Repr-Digest (RFC 9530, e.g. sha-256=:...:) before Digest (RFC 3230, e.g. SHA-256=...), the strongest of sha-512, sha-256, sha-1, md5 it names; Content-Digest (the digest of one answer's bytes) is not used"
        ],
        "proxy": [
            "send requests through this HTTP proxy, http://[USER:PASS@]HOST:PORT: plain HTTP in absolute form, HTTPS through a CONNECT tunnel (the certificate is still the origin's), Proxy-Authorization: Basic from the URL's user info. Default: http_proxy, https_proxy (or HTTPS_PROXY) from the environment, as curl reads them; a proxy answering 407 is exit 77"
        ],
        "noproxy": [
            "reach these hosts directly: comma-separated names, domains (.example.com or example.com covers subdomains), addresses, or *; default no_proxy"
        ],
        "connect-timeout": [
            "seconds to set up a connection, every step together: name lookup (on a helper thread, so a silent name server cannot hold it), TCP connect over every address, proxy tunnel and TLS handshake (default 15)"
        ],
        "speed-limit": [
            "the low-speed limit, as curl's (aria2's --lowest-speed-limit is the same as --speed-limit); off by default. RATE is bytes per second, at least 1, with the suffixes of --limit-rate; S is 1 to 86400 (default 30); --speed-time alone means a limit of 1 byte/s; RATE must be below --limit-rate. Each connection's rate is averaged over the last S seconds from when its body starts (connecting and waiting for an answer are bounded by the timeouts). RATE is the download's: a connection is dropped only when it is below its share (RATE / the connections receiving) and under a quarter of the others' median, i.e. it crawls while they do not (connections sharing a capped link are kept, and under --limit-rate none is dropped); its range goes to a new connection (the next server, when there are mirrors) without spending a retry, as long as the download as a whole keeps at RATE or more. When the whole download is below RATE, it fails as a timeout: exit 75, journal kept, and the same command resumes. Also for a single stream and -o -"
        ],
        "retries": [
            "retries of the probe and of each segment after temporary failures (default 5), a segment from its last written byte; exponential back-off with jitter, or the server's Retry-After (seconds, at most 60) on 503/429"
        ],
        "continue": [
            "continue a partial file that has no journal (left by curl or wget): keep its bytes, fetch the rest; beside aria2's NAME.aria2 or axel's NAME.st, keep only what that file marks done; with no NAME, another program's NAME.part (Firefox, yt-dlp) is continued the same way"
        ],
        "dry-run": [
            "probe only and print the URL after redirects, length, range support, validator, announced digest, the name, the plan (ranges, and the connections: a fixed count, or auto up to the per-host cap on each host) and what a journal there would resume (when the first URL cannot be reached, from the mirror that would stand in for it, as a run would); with --json one dry_run object (url, length, ranges, validator, digest, name, exists, plan: [[start, end], ...], connections: {\"count\": N} or {\"auto\": true, \"up_to\": N}, journal: {\"state\": \"none\"/\"resumable\"/\"unusable\", \"bytes_on_disk\"?, \"reason\"?}, mirrors); nothing is written"
        ],
        "verbose": [
            "log every request (> GET URL (bytes=...)), retry, steal, hedge and checkpoint to stderr; after the summary, the connections planned (as --dry-run says them) and the most at once, then one line with connections opened, TLS handshakes (full / resumed), steals, hedges won and lost, retries"
        ],
        "completion": [
            "print the shell's completion script, e.g. fastget --completion bash > /etc/bash_completion.d/fastget, fastget --completion fish > ~/.config/fish/completions/fastget.fish, fastget --completion zsh > ~/.zfunc/_fastget"
        ],
    ]
}
