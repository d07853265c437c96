/// Decodes `%XX` escapes; a `%` not followed by two hex digits is kept as is.
func percentDecoded(_ text: some StringProtocol) -> [UInt8] {
    let bytes = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
            let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        {
            output.append(high << 4 | low)
            index += 3
        } else {
            output.append(bytes[index])
            index += 1
        }
    }
    return output
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> String { String(decoding: Array(utf8).trimmingBytes(), as: UTF8.self) }
}

extension BidirectionalCollection<UInt8> {
    /// Without the bytes `isBlank` names at either end: by default spaces and tabs.
    func trimmingBytes(_ isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }) -> SubSequence {
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return self[endIndex...] }
        return self[first...last]
    }

    /// The bytes as a String with A-Z lower-cased (for ASCII text, what `lowercased()` gives),
    /// made without an intermediate copy.
    func asciiLowercased() -> String {
        String(unsafeUninitializedCapacity: count) { buffer in
            for (offset, byte) in enumerated() { buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte }
            return count
        }
    }
}
