/// Base64 (RFC 4648 §4, the standard alphabet) as header fields carry digests: `Digest`
/// (RFC 3230) and the byte sequences of structured fields such as `Repr-Digest` (RFC 9530).
package enum Base64 {
    /// The bytes `text` encodes; nil for a character outside the alphabet, misplaced padding or
    /// a length no encoding has. Padding may be left out.
    package static func decode(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for character in text.utf8 {
            if character == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Left over: 0 bits (no padding), 2 bits (one byte short of a group: "=="), 4 bits ("=").
        let group = (text.utf8.count - padding) % 4
        guard group != 1, padding <= 2, padding == 0 || (group + padding) % 4 == 0, accumulator == 0 else { return nil }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
