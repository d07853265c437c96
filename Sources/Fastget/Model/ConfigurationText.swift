/// The syntax of fastget's configuration file: one setting per line, `name = value` or a bare
/// `name`; `#` starts a comment to the end of the line; blanks around the name and the value
/// are dropped; lines end in LF or CRLF (`textLines`). What the names mean is the command
/// line's business: this reads the syntax only.
public struct ConfigurationText: Sendable, Equatable {
    /// One setting as written.
    public struct Setting: Sendable, Equatable {
        /// The line it is on, from 1.
        public let line: Int
        /// The name before `=`; empty when the line starts with `=`.
        public let name: String
        /// What follows `=` (possibly empty); nil when the line has no `=`.
        public let value: String?
    }

    /// The settings in the file's order; blank and comment lines give none.
    public let settings: [Setting]

    /// Reads the settings of `text`, a whole configuration file.
    public init(_ text: String) {
        var settings: [Setting] = []
        for (index, raw) in textLines(text).enumerated() {
            let line = trimmed(raw.prefix { $0 != "#" })
            guard !line.isEmpty else { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            settings.append(Setting(line: index + 1, name: trimmed(parts[0]), value: parts.count > 1 ? trimmed(parts[1]) : nil))
        }
        self.settings = settings
    }
}

/// Without leading and trailing spaces and tabs (bytes: a blank before a combining mark is
/// part of one `Character` with it).
private func trimmed(_ text: Substring) -> String {
    let bytes = text.utf8
    guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return "" }
    return String(Substring(bytes[first...last]))
}
