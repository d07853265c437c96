/// An IPv4 or IPv6 address, read from a host the way the C resolver reads it, and whether it is
/// public: a mirror a public server names may only reach public addresses.
///
/// The resolver takes far more spellings than dotted decimal: `getaddrinfo` reads an IPv4 host
/// with `inet_aton`, so `127.1`, `2130706433`, `0x7f000001` and `0177.0.0.1` are all
/// 127.0.0.1. A filter that knows fewer spellings than the resolver lets the rest through.
package enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    /// Sixteen bytes, network order.
    case v6([UInt8])

    /// The address `host` spells, as `getaddrinfo` with `AI_NUMERICHOST` reads it: an IPv4 host
    /// in every form `inet_aton` accepts, an IPv6 one in every form `inet_pton` accepts, in
    /// brackets or not, with or without a zone (`fe80::1%eth0`); nil for a name.
    package init?(host: String) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let value = IPAddress.inetAton(text.utf8) {
            self = .v4(value)
        } else {
            // A zone names the interface, not the address.
            if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
            guard let bytes = IPAddress.inetPton6(text.utf8) else { return nil }
            self = .v6(bytes)
        }
    }

    /// `text` read as `inet_aton` reads it, with nothing after the address: one to four parts
    /// separated by dots, each decimal, octal (a leading `0`) or hexadecimal (`0x`); every part
    /// but the last is one byte, the last fills the bytes that remain.
    package static func inetAton(_ text: Substring.UTF8View) -> UInt32? {
        var parts: [UInt32] = []
        var index = text.startIndex
        while true {
            guard index < text.endIndex, isDigit(text[index]) else { return nil }
            var radix: UInt64 = 10
            if text[index] == UInt8(ascii: "0") {
                radix = 8
                let next = text.index(after: index)
                if next < text.endIndex, text[next] | 0x20 == UInt8(ascii: "x") {
                    let first = text.index(after: next)
                    // `0x` without a hex digit is `0` followed by garbage, as strtoul reads it.
                    if first < text.endIndex, hexValue(text[first]) != nil {
                        radix = 16
                        index = first
                    }
                }
            }
            var value: UInt64 = 0
            while index < text.endIndex, let digit = hexValue(text[index]), UInt64(digit) < radix {
                value = value * radix + UInt64(digit)
                guard value <= 0xFFFF_FFFF else { return nil }
                index = text.index(after: index)
            }
            if index < text.endIndex, text[index] == UInt8(ascii: ".") {
                guard parts.count < 3, value <= 0xFF else { return nil }
                parts.append(UInt32(value))
                index = text.index(after: index)
                continue
            }
            guard index == text.endIndex else { return nil }
            let remaining = 4 - parts.count
            guard remaining == 4 || value >> (8 * UInt64(remaining)) == 0 else { return nil }
            return parts.enumerated().reduce(UInt32(value)) { $0 | $1.element << (8 * UInt32(3 - $1.offset)) }
        }
    }

    /// `text` read as `inet_pton(AF_INET6)` reads it: eight groups of one to four hex digits,
    /// one `::` standing for one or more zero groups, and the last 32 bits optionally as a
    /// dotted-decimal IPv4 address.
    package static func inetPton6(_ text: Substring.UTF8View) -> [UInt8]? {
        var bytes: [UInt8] = []
        var gap: Int?
        var index = text.startIndex
        let colon = UInt8(ascii: ":")
        if index < text.endIndex, text[index] == colon {
            let next = text.index(after: index)
            guard next < text.endIndex, text[next] == colon else { return nil }
            index = next
        }
        var groupStart = index
        var value = 0
        var digits = 0
        while index < text.endIndex {
            let byte = text[index]
            index = text.index(after: index)
            if let digit = hexValue(byte) {
                digits += 1
                guard digits <= 4 else { return nil }
                value = value << 4 | Int(digit)
            } else if byte == colon {
                if digits == 0 {
                    // `::`: only once.
                    guard gap == nil else { return nil }
                    gap = bytes.count
                } else {
                    guard index < text.endIndex, bytes.count + 2 <= 16 else { return nil }
                    bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
                groupStart = index
                value = 0
                digits = 0
            } else if byte == UInt8(ascii: "."), bytes.count + 4 <= 16, let v4 = dottedQuad(text[groupStart...]) {
                bytes += [UInt8(v4 >> 24), UInt8(v4 >> 16 & 0xFF), UInt8(v4 >> 8 & 0xFF), UInt8(v4 & 0xFF)]
                digits = 0
                index = text.endIndex
                break
            } else {
                return nil
            }
        }
        if digits > 0 {
            guard bytes.count + 2 <= 16 else { return nil }
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        if let gap {
            guard bytes.count < 16 else { return nil }
            bytes.insert(contentsOf: [UInt8](repeating: 0, count: 16 - bytes.count), at: gap)
        }
        return bytes.count == 16 ? bytes : nil
    }

    /// Four decimal parts of one byte each, no leading zeros, as `inet_pton(AF_INET)` reads them.
    private static func dottedQuad(_ text: Substring.UTF8View) -> UInt32? {
        var result: UInt32 = 0
        var parts = 0
        var value: UInt32 = 0
        var digits = 0
        for byte in text {
            if isDigit(byte) {
                if digits > 0 && value == 0 { return nil }
                value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return nil }
            } else if byte == UInt8(ascii: "."), digits > 0, parts < 3 {
                result = result << 8 | value
                parts += 1
                (value, digits) = (0, 0)
            } else {
                return nil
            }
        }
        guard digits > 0, parts == 3 else { return nil }
        return result << 8 | value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    package var description: String {
        switch self {
        case .v4(let value): return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        case .v6(let bytes):
            return stride(from: 0, to: 16, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
    }
}
