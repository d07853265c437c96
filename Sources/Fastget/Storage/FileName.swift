/// Local file names derived from what a server or URL says: never a path, never hidden tricks.
package enum FileName {
    /// The URL's last path segment, percent-decoded and made safe; "index.html" when empty.
    package static func derived(from url: HTTPURL) -> String {
        // The target is ASCII (`HTTPURL` percent-encodes the rest): its bytes are its characters.
        let target = url.target.utf8
        let path = target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
        let last = path[(path.lastIndex(of: UInt8(ascii: "/")).map(target.index(after:)) ?? path.startIndex)...]
        return sanitized(percentDecoded(Substring(last))) ?? "index.html"
    }

    /// The file name a `Content-Disposition` value gives (RFC 6266): `filename*` (RFC 8187,
    /// `UTF-8''percent-encoded`) before `filename`, made safe like any other name; nil when it
    /// names none.
    package static func fromContentDisposition(_ value: String) -> String? {
        var plain: [UInt8]?
        var extended: [UInt8]?
        for parameter in parameters(Array(value.utf8)).dropFirst() { // the first is the type
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: parameter[..<equals], as: UTF8.self).trimmingASCIISpaces().lowercased()
            var text = Array(parameter[(equals + 1)...])
            while text.first == 0x20 || text.first == 0x09 { text.removeFirst() }
            while text.last == 0x20 || text.last == 0x09 { text.removeLast() }
            switch name {
            case "filename":
                plain = unquoted(text)
            case "filename*":
                // charset'language'percent-encoded; only UTF-8 (and its ASCII subset) is read.
                let pieces = text.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
                guard pieces.count == 3 else { continue }
                let charset = String(decoding: pieces[0], as: UTF8.self).lowercased()
                guard charset == "utf-8" || charset == "us-ascii" else { continue }
                extended = percentDecoded(String(decoding: pieces[2], as: UTF8.self))
            default:
                continue
            }
        }
        for candidate in [extended, plain].compactMap({ $0 }) {
            if let name = sanitized(lastComponent(candidate)).flatMap(visible) { return name }
        }
        return nil
    }

    /// A server-chosen name without its leading dots (and the spaces among them): a server does
    /// not get to plant `.bashrc` or `.ssh` as a hidden file in the user's directory. Names
    /// from the URL the user typed keep theirs. Nil when nothing is left.
    private static func visible(_ name: String) -> String? {
        let rest = name.utf8.drop { $0 == UInt8(ascii: ".") || $0 == 0x20 || $0 == 0x09 }
        return rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self)
    }

    /// Splits a header value at the semicolons that are not inside a quoted string.
    private static func parameters(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        var quoted = false
        var escaped = false
        for (index, byte) in bytes.enumerated() {
            if escaped { escaped = false; continue }
            if quoted && byte == UInt8(ascii: "\\") { escaped = true; continue }
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ";") && !quoted {
                result.append(bytes[start..<index])
                start = index + 1
            }
        }
        result.append(bytes[start...])
        return result
    }

    /// A quoted-string's content with its escapes removed, or a token as it is.
    private static func unquoted(_ text: [UInt8]) -> [UInt8] {
        guard text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else { return text }
        var result: [UInt8] = []
        var escaped = false
        for byte in text.dropFirst().dropLast() {
            if !escaped && byte == UInt8(ascii: "\\") { escaped = true; continue }
            escaped = false
            result.append(byte)
        }
        return result
    }

    /// What follows the last "/" or "\\": a name that arrives as a path keeps only its end.
    private static func lastComponent(_ bytes: [UInt8]) -> [UInt8] {
        guard let separator = bytes.lastIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }) else { return bytes }
        return Array(bytes[(separator + 1)...])
    }

    /// `text` without format characters (Unicode category Cf): bidirectional controls make
    /// `evil\u{202E}gpj.exe` display as `evilexe.jpg`, and zero-width ones, tag characters
    /// (U+E0000-E007F) and the soft hyphen hide a name's real spelling (or a leading dot) from
    /// the eye. Percent-encoded ones are decoded before this.
    private static func withoutInvisibleFormatting(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar.properties.generalCategory != .format { scalars.append(scalar) }
        return String(scalars)
    }

    /// A single safe path component: no "/", NUL, control or invisible format characters, not "." or "..",
    /// at most `SidecarFiles.longestNameBytes` of valid UTF-8, so that `.part`, the journal and its
    /// temporary fit beside it within `NAME_MAX`. Nil when nothing usable is left.
    package static func sanitized(_ bytes: [UInt8]) -> String? {
        var cleaned: [UInt8] = []
        for byte in bytes {
            switch byte {
            case 0..<0x20, 0x7F: continue
            case UInt8(ascii: "/"), UInt8(ascii: "\\"): cleaned.append(UInt8(ascii: "_"))
            default: cleaned.append(byte)
            }
        }
        // ASCII has no format characters (they are all above U+00AD).
        let decoded = String(decoding: cleaned, as: UTF8.self)
        var text = (cleaned.allSatisfy { $0 < 0x80 } ? decoded : withoutInvisibleFormatting(decoded)).trimmingASCIISpaces()
        while text.utf8.count > SidecarFiles.longestNameBytes { text.removeLast() }
        if text.isEmpty || text == "." || text == ".." { return nil }
        return text
    }
}
