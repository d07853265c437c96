/// Local file names derived from what a server or URL says: never a path, never hidden tricks.
package enum FileName {
    /// The URL's last path segment, percent-decoded and made safe; "index.html" when empty.
    package static func derived(from url: HTTPURL) -> String {
        let path = url.path
        let last = path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]
        return sanitized(percentDecoded(last)) ?? "index.html"
    }

    /// A single safe path component: no "/", NUL or control characters, not "." or "..",
    /// at most 240 bytes of valid UTF-8. Nil when nothing usable is left.
    package static func sanitized(_ bytes: [UInt8]) -> String? {
        var cleaned: [UInt8] = []
        for byte in bytes {
            switch byte {
            case 0..<0x20, 0x7F: continue
            case UInt8(ascii: "/"), UInt8(ascii: "\\"): cleaned.append(UInt8(ascii: "_"))
            default: cleaned.append(byte)
            }
        }
        var text = String(decoding: cleaned, as: UTF8.self).trimmingASCIISpaces()
        while text.utf8.count > 240 { text.removeLast() }
        if text.isEmpty || text == "." || text == ".." { return nil }
        return text
    }
}
