import Fastget

/// `fastget --help`: the usage, a line per option of `CommandLineOption.all`, the progress map,
/// the exit statuses of the error codes and a few examples, every line within `width` columns
/// (a test runs the binary and checks): descriptions wrap at word boundaries.
enum HelpText {
    /// The widest line `--help` prints: an 80-column terminal shows it without a wrap.
    static let width = 80

    static var text: String {
        """
        Usage: fastget [options] URL [MIRROR-URL...]
               fastget [options] -i FILE [-j K]

        Downloads URL over parallel byte ranges into ./NAME (named by
        Content-Disposition or the URL), writing to NAME.part and renaming it only when
        every byte is in. NAME.fastget, the journal, records what is on disk: after
        Ctrl-C, a kill or a crash, the same command resumes. More URLs (or Link:
        rel=duplicate from the server) are mirrors: ranges come from all.

        Options:
        \(optionLines.joined(separator: "\n"))

        Progress map (a terminal shows one cell per segment, or per group of them):
          #  done                    =  receiving         .  waiting for a connection
          <  receiving, its tail taken over by an idle connection
          ^  hedged: an idle connection races for its tail
          !  stalled: nothing arrived for a while

        Exit codes:
        \(exitCodes.flatMap { wrapped($0.1, first: "  \($0.0)", indent: 7) }.joined(separator: "\n"))

        Examples:
        \(Manual.examples.prefix(Manual.helpExamples).map { "  # \($0.does)\n  \($0.command)" }.joined(separator: "\n"))

        More: man fastget (scripts/fastget.1 in the source) has every option, the
        environment, the files and the configuration file.

        """
    }

    /// The options, a line each, wrapped as `--help` prints them.
    static var optionLines: [String] {
        CommandLineOption.all.flatMap { option in
            wrapped(option.description, first: option.helpNames, indent: CommandLineOption.descriptionColumn)
        }
    }

    /// What each exit status means; several codes share some of them (69, 76).
    static let exitCodes: [(Int32, String)] = [
        (ExitStatus.success, "the file is complete under its final name"),
        (ExitStatus.of(.usage), "usage: bad option or URL (nothing was sent)"),
        (
            ExitStatus.of(.clientError),
            "client error: any other HTTP 4xx (400, 405, 409, 418, 451...), not retried"
        ),
        (
            ExitStatus.of(.notFound),
            "not found: HTTP 404/410, a 204/205 to the GET (no file), or no CA certificates (--cacert unreadable, no system bundle)"
        ),
        (ExitStatus.of(.hostNotFound), "the host name does not resolve"),
        (
            ExitStatus.of(.unavailable),
            "unavailable: connection refused or unreachable, HTTP 500 after retries, any other 5xx (501, 505, 520-524...): not retried"
        ),
        (ExitStatus.of(.cannotCreateOutput), "the output exists (use --overwrite) or cannot be created"),
        (ExitStatus.of(.localIO), "local I/O error, e.g. disk full or a file larger than the free space"),
        (ExitStatus.of(.temporary), "temporary failure after retries: timeout, dropped connection, 408/425/429/502/503/504"),
        (ExitStatus.of(.protocolViolation), "protocol or TLS failure: invalid response, wrong range, bad redirect, certificate rejected"),
        (ExitStatus.of(.accessDenied), "access denied: HTTP 401/403/407"),
        (ExitStatus.of(.cancelled), "interrupted (Ctrl-C, SIGTERM): the journal is kept; run the same command to resume"),
    ]

    /// `text` after `first` (padded to `indent` columns, or two spaces past it when longer),
    /// broken at spaces so that no line is wider than `width`; later lines start at `indent`.
    /// A word longer than a whole line stands alone on its line.
    static func wrapped(_ text: String, first: String, indent: Int) -> [String] {
        var line = first.count < indent ? first + String(repeating: " ", count: indent - first.count) : first + "  "
        var lines: [String] = []
        var empty = true
        for word in text.split(separator: " ") {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        return lines + [line]
    }
}
