import Fastget

/// The values of options, from text: each function checks one kind of value and says, in a
/// `UsageError` naming the option as given (`name`), what it needs instead.
enum OptionValue {
    /// The shortest timeout or interval: a shorter one is a typo rather than a wish (the kernel
    /// counts socket timeouts in clock ticks of 1-10 ms anyway).
    static let minimumSeconds = 0.001
    /// The lowest `--limit-rate`, in bytes per second.
    static let minimumRate: Int64 = 1 << 10

    /// A whole number within `range`.
    static func count(_ text: String, in range: ClosedRange<Int>, for name: String) throws(UsageError) -> Int {
        guard let number = Int(text) else { throw UsageError(message: "option \(name) needs a whole number, not '\(text)'") }
        guard range.contains(number) else {
            if range.upperBound < Int.max {
                throw UsageError(message: "option \(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(number))")
            }
            throw UsageError(
                message: range.lowerBound == 0
                    ? "option \(name) must not be negative"
                    : "option \(name) must be at least \(range.lowerBound) (got \(number))")
        }
        return number
    }

    /// `-n`: a count of connections, or `auto` (the default: as many as help).
    static func segments(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        invocation.options.segments = text == "auto" ? nil : try count(text, in: DownloadOptions.segmentRange, for: name)
    }

    /// Seconds, at least `minimumSeconds`. A huge value, even one beyond a Double (1e400 reads
    /// as infinity), means "no practical limit": the library caps what reaches the kernel. The
    /// words inf and nan are not numbers of seconds: both have an n, which no overflowing number
    /// has (nan fails every comparison anyway). No `String.contains(String)`: the static build
    /// leaves out _StringProcessing.
    static func seconds(_ text: String, for name: String) throws(UsageError) -> Double {
        guard let number = Double(text), number >= minimumSeconds, number.isFinite || !text.contains(where: { $0 == "n" || $0 == "N" }) else {
            throw UsageError(message: "option \(name) needs a number of seconds, at least \(minimumSeconds), not '\(text)'")
        }
        return number
    }

    /// `seconds` as a library time: nil (no limit) when beyond any practical one (a day's
    /// thousand years, where a duration could not hold it).
    static func duration(_ seconds: Double) -> Duration? {
        seconds < 3e13 ? .seconds(seconds) : nil
    }

    /// `RATE` in bytes per second, at least `minimum`, with an optional k, M or G (binary
    /// multiples, as curl).
    static func rate(_ text: String, for name: String, minimum: Int64 = minimumRate) throws(UsageError) -> Int64 {
        guard let bytes = bytes(text), bytes >= minimum else {
            let least = minimum >= 1 << 10 ? "\(minimum >> 10)k bytes" : minimum == 1 ? "1 byte" : "\(minimum) bytes"
            throw UsageError(message: "option \(name) needs a rate of at least \(least) per second, e.g. 500k or 4M, not '\(text)'")
        }
        return bytes
    }

    /// A number of bytes with an optional k, M or G (binary multiples); nil when `text` is not one.
    static func bytes(_ text: String) -> Int64? {
        let multipliers: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if let last = digits.last, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard let number = Double(digits), number >= 0, number.isFinite || !digits.contains(where: { $0 == "n" || $0 == "N" }) else {
            return nil
        }
        // Exabytes (per second) and beyond (1e300) mean no practical limit; capped so that the
        // conversion to Int64 cannot trap.
        return Int64(min(number * Double(multiplier), 0x1p62))
    }

    /// `--min-split-size SIZE` (aria2's, and its `-k SIZE`): no segment smaller, 1M to 1G as
    /// aria2 allows; smaller pieces would cost a request each for little.
    static func minimumSplitSize(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        guard let size = bytes(text), (1 << 20...1 << 30).contains(size) else {
            throw UsageError(message: "option \(name) needs a size from 1M to 1G, e.g. 4M, not '\(text)'")
        }
        invocation.options.minimumSegmentSize = size
    }

    /// `-w FORMAT` (curl's `--write-out`), checked now so that nothing is sent for a typo.
    static func writeOut(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        try WriteOut.check(text, name)
        invocation.writeOut = text
    }

    /// `--speed-limit RATE` (`-Y`, aria2's `--lowest-speed-limit`): at least 1 byte per second,
    /// with the suffixes of `--limit-rate`; measured over `--speed-time`, 30 s unless given.
    static func speedLimit(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        invocation.options.speedLimit = try rate(text, for: name, minimum: 1)
    }

    /// `--speed-time S` (`-y`): 1 s to a day (a limit never judged is no limit: leave it out).
    /// Given alone, the limit is 1 byte per second, as curl's: a body that stops for S seconds
    /// is dropped.
    static func speedTime(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        guard let value = Double(text), value.magnitude < 1e9, DownloadOptions.speedWindowRange.contains(.seconds(value)) else {
            throw UsageError(message: "option \(name) needs a number of seconds from 1 to 86400, not '\(text)'")
        }
        invocation.options.speedWindow = .seconds(value)
        if invocation.options.speedLimit == nil { invocation.options.speedLimit = 1 }
    }

    /// `-i FILE`, "-" for standard input.
    static func inputFile(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name (or - for standard input)") }
        invocation.inputFile = path
    }

    /// `-o FILE`, "-" for standard output (the file in order).
    static func output(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
        if path == "-" {
            invocation.options.outputDescriptor = 1
        } else {
            invocation.options.output = path
        }
    }

    /// `-d DIR`.
    static func directory(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a directory") }
        invocation.options.directory = path
        invocation.options.createsDirectories = true
        // The configuration file's directory is read while the count is nil.
        invocation.directoryGiven = invocation.configurationHeaderCount != nil
    }

    /// `-H 'Name: value'`: a token, a colon, and a value without line breaks (spaces after the
    /// colon dropped); repeatable. A field fastget sends replaces fastget's, `Name:` removes it;
    /// fields fastget must own are refused (`UserHeaderField`).
    static func header(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        try refuseLineBreaks(text, name)
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex,
            text[..<colon].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") })
        else {
            throw UsageError(message: "option \(name) needs 'Name: value', not '\(text)'")
        }
        let field = try headerField(String(text[..<colon]), String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }), name)
        dropEarlier(field.name.lowercased(), from: &invocation)
        invocation.options.headerFields.append(field)
    }

    /// The field `fieldName: value`, or the option's usage error saying why it cannot be one.
    static func headerField(_ fieldName: String, _ value: String, _ name: String) throws(UsageError) -> HeaderField {
        do {
            return try HeaderField(name: fieldName, value: value)
        } catch {
            throw UsageError(message: "option \(name): \(error.message)")
        }
    }

    /// Before a field named `lowered` is added: the fields of that name the configuration file
    /// gave go once the command line gives its own (the command line wins), and so does an
    /// earlier Host (there is one; the last given wins). Fastget's other fields take the last
    /// one given too (`UserHeaderField.merged`).
    private static func dropEarlier(_ lowered: String, from invocation: inout Invocation) {
        let fromFile = invocation.configurationHeaderCount ?? 0
        var kept: [HeaderField] = []
        var keptFromFile = 0
        for (index, field) in invocation.options.headerFields.enumerated() {
            if field.name.lowercased() == lowered && (index < fromFile || lowered == "host") { continue }
            kept.append(field)
            if index < fromFile { keptFromFile += 1 }
        }
        invocation.options.headerFields = kept
        if invocation.configurationHeaderCount != nil { invocation.configurationHeaderCount = keptFromFile }
    }

    /// `-A TEXT`: sent as the User-Agent; empty sends none.
    static func userAgent(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        // wget's -U is the User-Agent, curl's the proxy's USER:PASS: the value decides. One with
        // a colon and neither a space nor a slash (no product/version) is credentials, which
        // would go to every server as a User-Agent: refused, and not echoed.
        if name.hasPrefix("-U"), text.contains(":"), !text.contains(" "), !text.contains("/") {
            throw UsageError(message: "-U USER:PASS is curl's proxy user: write --proxy http://USER:PASS@HOST:PORT (-A TEXT sets a User-Agent)")
        }
        try refuseLineBreaks(text, name)
        invocation.options.userAgent = text
        // From the command line, it wins over a User-Agent field the configuration file gave.
        if invocation.configurationHeaderCount != nil { dropEarlier("user-agent", from: &invocation) }
    }

    /// A CR, LF or NUL would end the field it goes into, and the rest would be sent as fields
    /// (or a request) of their own: refused, naming the option (and, from the configuration
    /// file, its line).
    private static func refuseLineBreaks(_ text: String, _ name: String) throws(UsageError) {
        guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
            throw UsageError(message: "option \(name) must not contain a line break or NUL byte")
        }
        // Nor any other control character (RFC 9110 5.5): servers and proxies differ on them.
        guard !UserHeaderField.holdsControlCharacter(text) else { throw UsageError(message: "option \(name) must not contain a control character") }
    }

    /// `-u USER[:PASSWORD]`: no password means an empty one.
    static func user(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let user = parts.first, !user.isEmpty else { throw UsageError(message: "option \(name) needs USER[:PASSWORD]") }
        // The user name is quoted into a Digest answer: a line break there would end the field.
        try refuseLineBreaks(String(user), name)
        invocation.options.user = String(user)
        // `-u alice`: asked for on the terminal before anything is sent (`Password.ask`).
        invocation.options.password = parts.count > 1 ? String(parts[1]) : nil
    }

    /// `--resolve HOST:PORT:ADDRESS` (curl's): connect to ADDRESS for HOST:PORT; repeatable.
    static func resolve(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        var address = parts.count == 3 ? parts[2] : ""
        if address.hasPrefix("[") && address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port),
            address.contains(":") || address.split(separator: ".").count == 4
        else {
            throw UsageError(message: "option \(name) needs HOST:PORT:ADDRESS with an IP address (e.g. example.com:443:127.0.0.1), not '\(text)'")
        }
        invocation.options.resolve["\(parts[0].lowercased()):\(port)"] = address
    }

    /// `--netrc-file FILE`: must be readable.
    static func netrcFile(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        invocation.netrcFile = text
        invocation.netrcRequired = true
    }

    /// `--completion bash|zsh|fish`.
    static func completion(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        guard Completions.shells.contains(text) else { throw UsageError(message: "option \(name) takes bash, zsh or fish, not '\(text)'") }
        invocation.completionShell = text
    }

    /// `-C -` (curl's): continue the file from where it ends; no other offset is taken.
    static func continueAt(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        guard text == "-" else { throw UsageError(message: "option \(name) takes only '-' (continue from where the file ends), as -c does") }
        invocation.options.continuePartial = true
    }

    /// `--checksum ALGORITHM=HEX`, with the library's message when it is not one.
    static func checksum(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        do throws(FastgetError) {
            invocation.options.checksum = try Checksum(text)
        } catch {
            throw UsageError(message: error.message)
        }
    }
}
