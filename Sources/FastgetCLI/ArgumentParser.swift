import Fastget

enum ArgumentParser {
    /// Parses `arguments` (without the program name). Accepts `-n 8`, `-n8`, `--segments 8`,
    /// `--segments=8`, and `--` before a URL that starts with "-".
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var invocation = Invocation()
        var index = 0
        var positional: [String] = []

        func value(for option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "option \(option) needs a value") }
            return arguments[index]
        }
        func number(_ text: String, for option: String) throws(UsageError) -> Int {
            guard let number = Int(text) else { throw UsageError(message: "option \(option) needs a whole number, not '\(text)'") }
            return number
        }
        /// Seconds, at least a millisecond: a shorter timeout is a typo rather than a wish (the
        /// kernel counts socket timeouts in clock ticks of 1-10 ms anyway). A huge value, even
        /// one beyond a Double (1e400 reads as infinity), means "no practical limit": the library
        /// caps what reaches the kernel. The words inf and nan are not numbers of seconds: both
        /// have an n, which no overflowing number has (nan fails every comparison anyway). No
        /// `String.contains(String)`: the static build leaves out _StringProcessing.
        func seconds(_ text: String, for option: String) throws(UsageError) -> Double {
            guard let number = Double(text), number >= 0.001, number.isFinite || !text.contains(where: { $0 == "n" || $0 == "N" }) else {
                throw UsageError(message: "option \(option) needs a number of seconds, at least 0.001, not '\(text)'")
            }
            return number
        }

        /// `RATE` in bytes per second, with an optional k, M or G (binary multiples, as curl).
        func rate(_ text: String, for option: String) throws(UsageError) -> Int64 {
            let multipliers: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
            var digits = Substring(text)
            var multiplier: Int64 = 1
            if let last = digits.last, let factor = multipliers[last] {
                multiplier = factor
                digits = digits.dropLast()
            }
            guard let number = Double(digits), number * Double(multiplier) >= 1024,
                  number.isFinite || !digits.contains(where: { $0 == "n" || $0 == "N" }) else {
                throw UsageError(message: "option \(option) needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not '\(text)'")
            }
            // Exabytes per second and beyond (1e300) mean no practical limit; capped so that
            // the conversion to Int64 cannot trap.
            return Int64(min(number * Double(multiplier), 0x1p62))
        }

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if argument == "--" {
                positional += arguments[(index + 1)...]
                index = arguments.count
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2 {
                // "-n8": a short option with its value attached.
                name = String(argument.prefix(2))
                inline = String(argument.dropFirst(2))
            }
            switch name {
            case "-h", "--help":
                invocation.showHelp = true
            case "-V", "--version":
                invocation.showVersion = true
            case "-q", "--quiet":
                invocation.quiet = true
            case "-v", "--verbose":
                invocation.verbose = true
            case "--json":
                invocation.json = true
            case "-i", "--input-file":
                let path = try value(for: name, inline: inline)
                guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name (or - for standard input)") }
                invocation.inputFile = path
            case "-j", "--jobs":
                let count = try number(try value(for: name, inline: inline), for: name)
                guard (1...64).contains(count) else { throw UsageError(message: "option \(name) must be between 1 and 64 (got \(count))") }
                invocation.jobs = count
            case "-k", "--insecure":
                invocation.options.insecure = true
            case "--overwrite":
                invocation.options.overwrite = true
            case "-c", "--continue":
                invocation.options.continuePartial = true
            case "-o", "--output":
                let path = try value(for: name, inline: inline)
                guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
                if path == "-" {
                    invocation.options.outputDescriptor = 1 // standard output, in order
                } else {
                    invocation.options.output = path
                }
            case "-d", "--directory":
                let path = try value(for: name, inline: inline)
                guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a directory") }
                invocation.options.directory = path
            case "-n", "--segments":
                let count = try number(try value(for: name, inline: inline), for: name)
                guard DownloadOptions.segmentRange.contains(count) else {
                    throw UsageError(message: "option \(name) must be between 1 and 64 (got \(count))")
                }
                invocation.options.segments = count
            case "-H", "--header":
                let text = try value(for: name, inline: inline)
                guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                    throw UsageError(message: "option \(name) must not contain a line break")
                }
                guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
                      text[..<colon].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                    throw UsageError(message: "option \(name) needs 'Name: value', not '\(text)'")
                }
                let value = text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                invocation.options.headers.append((String(text[..<colon]), String(value)))
            case "-A", "--user-agent":
                invocation.options.userAgent = try value(for: name, inline: inline)
            case "-u", "--user":
                let text = try value(for: name, inline: inline)
                let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard let user = parts.first, !user.isEmpty else { throw UsageError(message: "option \(name) needs USER[:PASSWORD]") }
                invocation.options.user = String(user)
                invocation.options.password = parts.count > 1 ? String(parts[1]) : ""
            case "--limit-rate":
                invocation.options.rateLimit = try rate(try value(for: name, inline: inline), for: name)
            case "--checksum":
                do {
                    invocation.options.checksum = try Checksum(try value(for: name, inline: inline))
                } catch let error as FastgetError {
                    throw UsageError(message: error.message)
                } catch {
                    throw UsageError(message: "\(error)")
                }
            case "--proxy":
                invocation.options.proxy = try value(for: name, inline: inline)
            case "--noproxy":
                invocation.options.noProxy = try value(for: name, inline: inline)
            case "--cacert":
                invocation.options.caFile = try value(for: name, inline: inline)
            case "--connect-timeout":
                invocation.options.connectTimeout = try seconds(try value(for: name, inline: inline), for: name)
            case "--timeout":
                invocation.options.timeout = try seconds(try value(for: name, inline: inline), for: name)
            case "--checkpoint-interval":
                invocation.options.checkpointInterval = try seconds(try value(for: name, inline: inline), for: name)
            case "--retries":
                let count = try number(try value(for: name, inline: inline), for: name)
                guard count >= 0 else { throw UsageError(message: "option \(name) must not be negative") }
                invocation.options.retries = count
            default:
                throw UsageError(message: "unknown option '\(argument)'")
            }
            if inline != nil && ["-h", "--help", "-V", "--version", "-q", "--quiet", "-v", "--verbose", "--json", "-k", "--insecure", "--overwrite", "-c", "--continue"].contains(name) {
                throw UsageError(message: "option \(name) takes no value")
            }
        }
        if invocation.showHelp || invocation.showVersion { return invocation }
        if invocation.json && invocation.options.outputDescriptor != nil {
            throw UsageError(message: "--json and -o - both want standard output")
        }
        if invocation.inputFile != nil {
            guard positional.isEmpty else { throw UsageError(message: "give URLs either with -i or on the command line, not both") }
            guard invocation.options.output == nil, invocation.options.outputDescriptor == nil else {
                throw UsageError(message: "-o names one file; with -i use -d DIR")
            }
            return invocation
        }
        guard positional.count == 1 else {
            throw UsageError(message: positional.isEmpty ? "no URL given" : "one URL at a time (got \(positional.count))")
        }
        invocation.url = positional[0]
        return invocation
    }

    static let help = """
    Usage: fastget [options] URL
           fastget [options] -i FILE [-j K]

    Downloads URL over parallel byte ranges into ./NAME (named by Content-Disposition or the
    URL), writing to NAME.part and renaming it only when every byte is in. NAME.fastget, the
    journal, records what is on disk: after Ctrl-C, a kill or a crash, the same command resumes.

    Options:
      -n, --segments N        parallel connections, 1-64 (default 8; at least 1 MiB each)
      -i, --input-file FILE   download every URL in FILE, one per line (- reads standard input)
      -j, --jobs K            with -i: K downloads at once, 1-64 (default 3)
      -o, --output FILE       save as FILE; - writes the file to standard output, in order
      -d, --directory DIR     save in DIR (default: the current directory)
          --overwrite         replace an existing file (default: refuse, exit 73)
      -c, --continue          continue a partial file left without a journal (e.g. by curl or wget)
      -H, --header 'N: V'     send this header field with every request (repeatable)
      -A, --user-agent TEXT   send TEXT as User-Agent
      -u, --user USER:PASS    HTTP Basic credentials (sent only to the URL's own host)
          --limit-rate RATE   at most RATE bytes per second in total (suffixes k, M, G)
          --checksum A=HEX    check the file's sha-256, sha-1 or md5 before calling it done
          --proxy URL         use this HTTP proxy, http://[USER:PASS@]HOST:PORT (default: http_proxy)
          --noproxy LIST      hosts reached directly: names, .domains, addresses, * (default: no_proxy)
          --cacert FILE       trust the CA certificates in FILE (PEM) instead of the system store
      -k, --insecure          do not verify the server's certificate or host name
          --connect-timeout S seconds to connect: name lookup, TCP, proxy tunnel, TLS (default 15)
          --timeout S         seconds a read may wait for data before retrying (default 30)
          --retries N         retries of the probe and each segment on temporary failures (default 5)
          --checkpoint-interval S  seconds between journal checkpoints (default 1)
      -q, --quiet             print nothing but errors
      -v, --verbose           log requests, retries, steals, hedges, checkpoints and TLS handshakes
          --json              events as JSON lines on stdout instead of the progress display
      -h, --help              print this help
      -V, --version           print the versions of fastget and OpenSSL

    Exit codes:
      0    the file is complete under its final name
      64   usage: bad option or URL (nothing was sent)
      66   not found: HTTP 404/410, or no CA certificates (--cacert unreadable, no system bundle)
      68   the host name does not resolve
      69   unavailable: connection refused or unreachable, or a server error (5xx)
      73   the output exists (use --overwrite) or cannot be created
      74   local I/O error, e.g. disk full or a file larger than the free space
      75   temporary failure after retries: timeout, dropped connection, 408/429/502/503/504
      76   protocol or TLS failure: invalid response, wrong range, bad redirect, certificate rejected
      77   access denied: HTTP 401/403/407
      130  interrupted (Ctrl-C, SIGTERM): the journal is kept; run the same command to resume

    """
}
