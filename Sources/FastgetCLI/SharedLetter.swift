/// Letters that curl, wget and aria2 give different meanings, decided by the value that
/// follows, never by guessing which tool the user had in mind:
///
/// - `-O NAME`, `-O -`, `-O-`, `-qO-`, `-Oout.bin`: wget's output document (`-o`) — a separate
///   NAME without `://` while another argument is there to be the URL (before or after it), an
///   attached one with a character other than a letter or digit. `-O URL`, `-O` last, and `-O`
///   with flag letters attached (`-OL`, `-OJ`, `-LOJ`, `-Ok`) stay curl's remote name (the default
///   here). What could be either (`-O NAME` as the only argument, `-Oname`) is refused.
/// - `-x N`, `-x16`: aria2's connections per server (`--max-per-host`); `-x HOST:PORT` or a URL
///   stays curl's proxy.
/// - `-s N`, `-s16`: aria2's split (`-n`); `-s` alone, `-sS`, `-s4`, `-s6` stay curl's silent
///   (with `-4`/`-6`).
/// - `-k SIZE`, `-k1M`: aria2's minimum split size (`--min-split-size`) when SIZE ends in K, M
///   or G or is at least 1M as a bare number; `-k` alone, `-k4`, `-k6` stay curl's insecure.
enum SharedLetter {
    /// What the option `name` means with its `attached` value (`-x16`) or else the `next`
    /// argument, when the value decides it: the long name of the option it is, its value, and
    /// whether `next` was taken. Nil when it means what the option table says. `later` are the
    /// arguments after `next`; `afterURL`: an argument that is no option came before.
    static func decide(_ name: String, attached: String?, next: String?, later: ArraySlice<String>, afterURL: Bool) throws(UsageError)
        -> (long: String, value: String, takesNext: Bool)?
    {
        let value = attached ?? next
        guard let value else { return nil }
        let taken = attached == nil
        // `-k4`, `-s6`: curl's flag with -4 or -6, never a 4-byte split or 6 segments.
        let ipFlag = attached == "4" || attached == "6"
        switch name {
        case "-O":
            return try output(attached: attached, next: next, otherArgument: afterURL || later.contains { !$0.hasPrefix("-") })
        case "-x":
            return isWholeNumber(value) ? ("max-per-host", value, taken) : nil
        case "-s":
            return isWholeNumber(value) && !ipFlag ? ("segments", value, taken) : nil
        case "-k":
            return isSize(value) && !ipFlag ? ("min-split-size", value, taken) : nil
        default:
            return nil
        }
    }

    /// `-O`'s value: wget's file name, or nil for curl's flag; refused when it could be either.
    private static func output(attached: String?, next: String?, otherArgument: Bool) throws(UsageError)
        -> (long: String, value: String, takesNext: Bool)?
    {
        if let attached {
            if attached.allSatisfy({ flagLetters.contains($0) }) { return nil } // -OL, -OJ, -Ok: curl's flags
            guard attached.allSatisfy({ $0.isLetter || $0.isASCIIDigit }) else { return ("output", attached, false) }
            throw UsageError(message: "-O\(attached): a file name (wget) or flags (curl)? write -o NAME")
        }
        guard let next, next == "-" || !next.hasPrefix("-") else { return nil }
        if next == "-" || (schemeEnd(next) == nil && otherArgument) { return ("output", next, true) }
        if schemeEnd(next) != nil { return nil }
        // The only argument left: wget's name with the URL forgotten, or curl's URL without a scheme.
        throw UsageError(message: "-O \(next): a file name (wget) or a URL (curl)? write -o NAME, or the URL with http(s)://")
    }

    /// Where `text`'s `://` ends, if it has one. (By hand: `String.contains(String)` and
    /// `firstRange(of:)` come from the string-processing module, which the static build leaves
    /// out.)
    static func schemeEnd(_ text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }

    /// The letters of the options that take no value (`-L`, `-J`, `-k`, `-s`, `-4`…).
    private static let flagLetters: Set<Character> = Set(
        CommandLineOption.all.filter { !$0.takesValue }.flatMap { option in
            [option.short].compactMap { $0 } + option.aliases.filter { $0.count == 2 && !$0.hasPrefix("--") }.compactMap(\.last)
        })

    private static func isWholeNumber(_ text: String) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCIIDigit) }

    /// `1M`, `512K`, `1G`, `1048576` (aria2's sizes): digits with K, M or G, or a bare number of
    /// at least 1M (aria2's smallest), so that `-k 4` is not taken for a size.
    private static func isSize(_ text: String) -> Bool {
        guard let last = text.last else { return false }
        let suffixed = "KkMmGg".contains(last)
        let digits = suffixed ? text.dropLast() : Substring(text)
        guard !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit) else { return false }
        return suffixed || (Int(digits) ?? Int.max) >= 1 << 20
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
