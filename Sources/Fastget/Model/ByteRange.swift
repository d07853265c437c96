/// A half-open byte range `[start, end)`.
public struct ByteRange: Sendable, Equatable, CustomStringConvertible {
    /// The first byte.
    public var start: Int64
    /// One past the last byte.
    public var end: Int64

    /// A range of `end - start` bytes; `start` must not exceed `end`.
    public init(start: Int64, end: Int64) {
        precondition(start <= end)
        self.start = start
        self.end = end
    }

    /// The number of bytes.
    public var count: Int64 { end - start }
    /// As a `Range` header value: `bytes=start-last` (inclusive last byte).
    public var headerValue: String { "bytes=\(start)-\(end - 1)" }
    /// `[start, end)`.
    public var description: String { "[\(start), \(end))" }
}

extension ByteRange {
    /// `ranges` sorted, with overlapping and touching ones joined and empty ones dropped.
    package static func joined(_ ranges: [ByteRange]) -> [ByteRange] {
        ranges.filter { $0.count > 0 }.sorted { $0.start < $1.start }.reduce(into: []) { joined, range in
            if let last = joined.last, last.end >= range.start {
                joined[joined.count - 1] = ByteRange(start: last.start, end: max(last.end, range.end))
            } else {
                joined.append(range)
            }
        }
    }
}
