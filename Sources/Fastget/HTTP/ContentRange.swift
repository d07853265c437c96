/// A `Content-Range` value (RFC 9110 §14.4): `bytes first-last/complete`, `bytes first-last/*`,
/// or the unsatisfied form `bytes */complete`.
package struct ContentRange: Sendable, Equatable {
    /// First and last byte positions, inclusive; nil for `bytes */complete`.
    package var first: Int64?
    package var last: Int64?
    /// The complete length, nil for `/*`.
    package var completeLength: Int64?

    package init(first: Int64?, last: Int64?, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// "bytes", the only range unit (RFC 9110 §14.1), compared without regard to case.
    private static let unit = Array("bytes".utf8)

    package static func parse(_ value: String) throws(HTTPParseError) -> ContentRange {
        let invalid = HTTPParseError.invalidContentRange(value)
        let bytes = Array(value.utf8)
        let text = bytes[...].trimmingBytes()
        // "bytes " in any case (an exact space: a NUL is no space).
        let start = text.startIndex
        guard text.count > 6, (0..<5).allSatisfy({ text[start + $0] | 0x20 == ContentRange.unit[$0] }), text[start + 5] == 0x20
        else { throw invalid }
        let spec = text.dropFirst(6).trimmingBytes()
        let star: [UInt8] = [UInt8(ascii: "*")]
        guard let slash = spec.firstIndex(of: UInt8(ascii: "/")), !spec[(slash + 1)...].contains(UInt8(ascii: "/")) else { throw invalid }
        let (range, length) = (spec[..<slash], spec[(slash + 1)...])
        var complete: Int64?
        if !length.elementsEqual(star) {
            guard let number = parseNumber(length) else { throw invalid }
            complete = number
        }
        if range.elementsEqual(star) {
            guard let complete else { throw invalid }
            return ContentRange(first: nil, last: nil, completeLength: complete)
        }
        guard let dash = range.firstIndex(of: UInt8(ascii: "-")), let first = parseNumber(range[..<dash]),
            let last = parseNumber(range[(dash + 1)...]), first <= last
        else { throw invalid }
        if let complete, last >= complete { throw invalid }
        return ContentRange(first: first, last: last, completeLength: complete)
    }

    /// 1 to 18 ASCII digits (no sign, no space), so that the value fits an `Int64`.
    private static func parseNumber(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }
}
