/// One challenge of a `WWW-Authenticate` (or `Proxy-Authenticate`) field (RFC 9110 §11.6.1):
/// a scheme and its parameters. One field may hold several challenges, and a server may send
/// several fields: `Basic realm="a", Digest realm="a", nonce="n"` is two.
package struct AuthChallenge: Sendable, Equatable {
    /// The scheme, lower-cased (`basic`, `digest`).
    package var scheme: String
    /// The parameters in order, names lower-cased, quoted values unquoted. A token68 (the
    /// `Negotiate abc==` form) is left out: no scheme fastget speaks uses it.
    package var parameters: [Parameter]

    package struct Parameter: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The value of parameter `name` (lower-case), if given.
    package func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The schemes of `challenges` as a hint names them ("negotiate or digest SHA-512-256"):
    /// at most `AuthChallenge.namedSchemes`, each at most 40 printable ASCII characters (a
    /// server's text must not fill the terminal or drive it with escapes); any other is
    /// "another scheme", and none at all "an unsupported scheme".
    package static func schemeNames(_ challenges: [AuthChallenge]) -> String {
        var names: [String] = []
        var seen: Set<String> = []
        var others = false
        for challenge in challenges {
            let name = [challenge.scheme, challenge.scheme == "digest" ? challenge.parameter("algorithm") : nil].compactMap { $0 }
                .joined(separator: " ")
            guard seen.insert(name).inserted else { continue }
            if names.count < namedSchemes, name.utf8.count <= 40, name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                names.append(name)
            } else {
                others = true
            }
        }
        if names.isEmpty { return "an unsupported scheme" }
        return (names + (others ? ["another scheme"] : [])).joined(separator: " or ")
    }

    /// How many schemes a hint names.
    static let namedSchemes = 3

    /// Every challenge in `values` (the field's lines), in order. Malformed parts are skipped,
    /// never fatal: a server's odd challenge must not hide the one fastget can answer.
    package static func parse(_ values: [String]) -> [AuthChallenge] {
        var challenges: [AuthChallenge] = []
        for value in values {
            var scanner = Scanner(Array(value.utf8))
            while let item = scanner.nextItem() {
                switch item {
                case .scheme(let scheme):
                    challenges.append(AuthChallenge(scheme: scheme, parameters: []))
                case .parameter(let name, let value):
                    guard !challenges.isEmpty else { continue }
                    challenges[challenges.count - 1].parameters.append(Parameter(name: name, value: value))
                }
            }
        }
        return challenges
    }

    /// Reads a field value a piece at a time: a scheme (a token not followed by `=`) or a
    /// `name=value` parameter (value a token or a quoted string with `\` escapes).
    private struct Scanner {
        enum Item {
            case scheme(String)
            case parameter(String, String)
        }

        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func nextItem() -> Item? {
            while true {
                skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
                guard index < bytes.count else { return nil }
                let name = token()
                guard !name.isEmpty else {
                    index += 1 // a stray byte (a lone quote, `=`): skipped
                    continue
                }
                let afterName = index
                skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                    index = afterName
                    return .scheme(name.lowercased())
                }
                index += 1
                skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") { return .parameter(name.lowercased(), quoted()) }
                let value = token()
                // A token68 ends in `=` padding and has no value of its own: `abc==`.
                skip { $0 == UInt8(ascii: "=") }
                if value.isEmpty { continue }
                return .parameter(name.lowercased(), value)
            }
        }

        private mutating func skip(while matches: (UInt8) -> Bool) {
            while index < bytes.count, matches(bytes[index]) { index += 1 }
        }

        /// Bytes up to white space, a comma, `=` or a quote.
        private mutating func token() -> String {
            let start = index
            skip {
                ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "\"")].contains($0)
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A quoted string from its opening quote; an unterminated one runs to the end.
        private mutating func quoted() -> String {
            index += 1
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\"), index < bytes.count {
                    value.append(bytes[index])
                    index += 1
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }
    }
}
