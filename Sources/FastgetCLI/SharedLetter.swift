/// Letters that curl, wget and aria2 give different meanings, decided by the value that
/// follows, never by guessing which tool the user had in mind:
///
/// - `-O NAME`, `-O -`, `-O-`, `-qO-`: wget's output document (`-o`); `-O URL`, or `-O` before
///   the only remaining argument, stays curl's remote name (the default here).
/// - `-x N`, `-x16`: aria2's connections per server (`--max-per-host`); `-x HOST:PORT` or a URL
///   stays curl's proxy.
/// - `-s N`, `-s16`: aria2's split (`-n`); `-s` alone, or `-sS`, stays curl's silent.
/// - `-k SIZE`, `-k1M`: aria2's minimum split size (`--min-split-size`); `-k` alone stays
///   curl's insecure.
enum SharedLetter {
    /// What the option `name` means with its `attached` value (`-x16`) or else the `next`
    /// argument, when the value decides it: the long name of the option it is, its value, and
    /// whether `next` was taken. Nil when it means what the option table says. `later` are the
    /// arguments after `next`.
    static func decide(_ name: String, attached: String?, next: String?, later: ArraySlice<String>)
        -> (long: String, value: String, takesNext: Bool)?
    {
        let value = attached ?? next
        guard let value else { return nil }
        let taken = attached == nil
        switch name {
        case "-O":
            // curl's -O takes no value: anything attached is wget's file name. A separate
            // value is one when it is "-" or not a URL and a URL may still follow it.
            let isName = value == "-" || (!value.hasPrefix("-") && !value.contains("://") && later.contains { !$0.hasPrefix("-") })
            return attached != nil || isName ? ("output", value, taken) : nil
        case "-x":
            return isWholeNumber(value) ? ("max-per-host", value, taken) : nil
        case "-s":
            return isWholeNumber(value) ? ("segments", value, taken) : nil
        case "-k":
            return isSize(value) ? ("min-split-size", value, taken) : nil
        default:
            return nil
        }
    }

    private static func isWholeNumber(_ text: String) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCIIDigit) }

    /// `1048576`, `1M`, `512K` (aria2's sizes): digits with an optional K or M.
    private static func isSize(_ text: String) -> Bool {
        guard let last = text.last else { return false }
        let digits = "KkMm".contains(last) ? text.dropLast() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
