/// The `Link` header field (RFC 8288 §3): `<target>; name=value; name="quoted", <target>; …`.
/// Only what a client needs to find a file's mirrors: each link's target as written and its
/// parameters (names lower-cased, values unquoted). A link that does not parse is skipped,
/// not the whole field.
package enum LinkField {
    package struct Link: Equatable, Sendable {
        /// The target as written between `<` and `>` (a URI reference, maybe relative).
        package let target: String
        package let parameters: [String: String]

        /// The relation types of `rel`, lower-cased (`rel="duplicate describedby"` has two).
        package var relations: [String] {
            (parameters["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
    }

    package static func parse(_ value: String) -> [Link] {
        var links: [Link] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard rest.first == "<" else {
                // Not a link: skip to the next comma outside quotes (or the end).
                guard let next = nextComma(in: rest) else { return links }
                rest = rest[rest.index(after: next)...]
                continue
            }
            // No `>` left means no link can end after this one: stop, rather than search the
            // rest again from every later `<` (quadratic in a hostile 64 KiB field).
            guard let close = rest.firstIndex(of: ">") else { return links }
            let target = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            var parameters: [String: String] = [:]
            var valid = true
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" }
                guard rest.first == ";" else { break }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                let written = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " && $0 != "\t" }
                let name = written.lowercased()
                rest = rest[written.endIndex...].drop { $0 == " " || $0 == "\t" }
                var parameterValue = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                    guard let (text, after) = token(rest) else {
                        valid = false
                        break
                    }
                    parameterValue = text
                    rest = after
                }
                // The first occurrence of a parameter counts (RFC 8288 §3.3 for rel).
                if !name.isEmpty && parameters[name] == nil { parameters[name] = parameterValue }
            }
            if valid && !target.isEmpty { links.append(Link(target: target, parameters: parameters)) }
            guard let next = nextComma(in: rest) else { return links }
            rest = rest[rest.index(after: next)...]
        }
    }

    /// A quoted string (with `\` escapes) or a token, and what follows it.
    private static func token(_ text: Substring) -> (String, Substring)? {
        guard text.first == "\"" else {
            let value = text.prefix { $0 != ";" && $0 != "," && $0 != " " && $0 != "\t" }
            return (String(value), text.dropFirst(value.count))
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { return (value, text[text.index(after: index)...]) }
            if character == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
            }
            value.append(text[index])
            index = text.index(after: index)
        }
        return nil // unterminated
    }

    /// The next comma outside a quoted string.
    private static func nextComma(in text: Substring) -> Substring.Index? {
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                return index
            }
        }
        return nil
    }
}
