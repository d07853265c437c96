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

    package static func parse(_ value: String) throws(HTTPParseError) -> ContentRange {
        let text = value.trimmingASCIISpaces()
        let invalid = HTTPParseError.invalidContentRange(value)
        guard text.utf8.count > 6, text.prefix(6).lowercased() == "bytes " else { throw invalid }
        let spec = text.dropFirst(6).trimmingASCIISpaces()
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { throw invalid }
        var complete: Int64?
        if halves[1] != "*" {
            guard let number = parseNumber(halves[1]) else { throw invalid }
            complete = number
        }
        if halves[0] == "*" {
            guard let complete else { throw invalid }
            return ContentRange(first: nil, last: nil, completeLength: complete)
        }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = parseNumber(bounds[0]), let last = parseNumber(bounds[1]), first <= last else {
            throw invalid
        }
        if let complete, last >= complete { throw invalid }
        return ContentRange(first: first, last: last, completeLength: complete)
    }

    private static func parseNumber(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
