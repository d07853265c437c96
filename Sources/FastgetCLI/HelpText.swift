import Fastget

/// `fastget --help`: the usage, a line per option of `CommandLineOption.all`, and the exit
/// statuses of the error codes.
enum HelpText {
    static var text: String {
        """
        Usage: fastget [options] URL [MIRROR-URL...]
               fastget [options] -i FILE [-j K]

        Downloads URL over parallel byte ranges into ./NAME (named by Content-Disposition or the
        URL), writing to NAME.part and renaming it only when every byte is in. NAME.fastget, the
        journal, records what is on disk: after Ctrl-C, a kill or a crash, the same command resumes.
        More URLs (or Link: rel=duplicate from the server) are mirrors: ranges come from all.

        Options:
        \(CommandLineOption.all.map(\.helpLine).joined(separator: "\n"))

        Progress map (a terminal shows one cell per segment, or per group of them):
          #  done                    =  receiving         .  waiting for a connection
          <  receiving, its tail taken over by an idle connection
          ^  hedged: an idle connection races for its tail
          !  stalled: nothing arrived for a while

        Exit codes:
        \(exitCodes.map { "  " + pad($0.0) + $0.1 }.joined(separator: "\n"))

        """
    }

    /// What each exit status means; several codes share some of them (69, 76).
    static let exitCodes: [(Int32, String)] = [
        (ExitStatus.success, "the file is complete under its final name"),
        (FastgetError.Code.usage.exitCode, "usage: bad option or URL (nothing was sent)"),
        (
            FastgetError.Code.clientError.exitCode,
            "client error: any other HTTP 4xx (400, 405, 409, 418, 451...), not retried"
        ),
        (
            FastgetError.Code.notFound.exitCode,
            "not found: HTTP 404/410, a 204/205 to the GET (no file), or no CA certificates (--cacert unreadable, no system bundle)"
        ),
        (FastgetError.Code.hostNotFound.exitCode, "the host name does not resolve"),
        (
            FastgetError.Code.unavailable.exitCode,
            "unavailable: connection refused or unreachable, HTTP 500 after retries, 501, 505..."
        ),
        (FastgetError.Code.cannotCreateOutput.exitCode, "the output exists (use --overwrite) or cannot be created"),
        (FastgetError.Code.localIO.exitCode, "local I/O error, e.g. disk full or a file larger than the free space"),
        (FastgetError.Code.temporary.exitCode, "temporary failure after retries: timeout, dropped connection, 408/425/429/502/503/504"),
        (FastgetError.Code.protocolViolation.exitCode, "protocol or TLS failure: invalid response, wrong range, bad redirect, certificate rejected"),
        (FastgetError.Code.accessDenied.exitCode, "access denied: HTTP 401/403/407"),
        (FastgetError.Code.cancelled.exitCode, "interrupted (Ctrl-C, SIGTERM): the journal is kept; run the same command to resume"),
    ]

    /// `64   `: the status in a column of five.
    private static func pad(_ status: Int32) -> String {
        let text = String(status)
        return text + String(repeating: " ", count: max(1, 5 - text.count))
    }
}
