/// Credentials from a `.netrc` file, as curl reads one: `machine HOST login USER password PASS`
/// entries (and a `default` one), tokens separated by blanks or line breaks, `"quoted"` tokens
/// with `\` escapes, `macdef` bodies skipped up to a blank line.
public struct Netrc: Sendable, Equatable {
    /// One entry: the host it is for (nil: `default`), the login and the password.
    public struct Entry: Sendable, Equatable {
        /// The host it is for, lower-cased; nil for `default`.
        public let machine: String?
        /// The user name.
        public let login: String?
        /// The password, when the file gives one.
        public let password: String?

        /// An entry as a file gives it.
        public init(machine: String?, login: String?, password: String?) {
            self.machine = machine
            self.login = login
            self.password = password
        }
    }

    /// The entries in the file's order.
    public let entries: [Entry]

    /// Parses `text`; what does not parse is skipped.
    public init(_ text: String) {
        var entries: [Entry] = []
        var current: (machine: String?, login: String?, password: String?, open: Bool) = (nil, nil, nil, false)
        func close() {
            if current.open { entries.append(Entry(machine: current.machine, login: current.login, password: current.password)) }
            current = (nil, nil, nil, false)
        }
        var tokens = Netrc.tokens(text)[...]
        while let token = tokens.popFirst() {
            switch token {
            case "machine":
                close()
                current = (tokens.popFirst()?.lowercased(), nil, nil, true)
            case "default":
                close()
                current = (nil, nil, nil, true)
            case "login": current.login = tokens.popFirst()
            case "password": current.password = tokens.popFirst()
            case "account": _ = tokens.popFirst()
            default: break
            }
        }
        close()
        self.entries = entries
    }

    /// The entry for `host`: its `machine` entry (case-insensitively), else `default`.
    public func entry(for host: String) -> Entry? {
        entries.first { $0.machine == host.lowercased() } ?? entries.first { $0.machine == nil }
    }

    /// Blank-separated tokens; a `macdef` line's body (up to a blank line) is skipped.
    private static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var skippingMacro = false
        for line in textLines(text) {
            if skippingMacro {
                if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { skippingMacro = false }
                continue
            }
            var rest = Substring(line)
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
                guard let first = rest.first else { break }
                var token = ""
                if first == "\"" {
                    rest = rest.dropFirst()
                    while let character = rest.popFirst(), character != "\"" {
                        if character == "\\", let next = rest.popFirst() { token.append(next) } else { token.append(character) }
                    }
                } else {
                    token = String(rest.prefix { $0 != " " && $0 != "\t" && $0 != "\r" })
                    rest = rest.dropFirst(token.count)
                }
                tokens.append(token)
            }
            if tokens.last == "macdef" || (tokens.count >= 2 && tokens[tokens.count - 2] == "macdef") { skippingMacro = true }
        }
        return tokens
    }
}
