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
    func trimmingASCIISpaces() -> String {
        let utf8 = Array(self.utf8)
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
