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

/// How a file of known length is cut into segments.
package enum SegmentPlan {
    /// Splits `[0, length)` into at most `segments` contiguous ranges of nearly equal size, none
    /// smaller than `minimumSize` (except when the whole file is smaller). The ranges tile the
    /// file exactly: each starts where the previous ended, the first at 0, the last at `length`.
    package static func tiles(length: Int64, segments: Int, minimumSize: Int64) -> [ByteRange] {
        precondition(length >= 0 && segments >= 1 && minimumSize >= 1)
        guard length > 0 else { return [] }
        let count = Int(max(1, min(Int64(segments), length / minimumSize)))
        let base = length / Int64(count)
        let extra = length % Int64(count)
        var ranges: [ByteRange] = []
        ranges.reserveCapacity(count)
        var start: Int64 = 0
        for index in 0..<count {
            let size = base + (Int64(index) < extra ? 1 : 0)
            ranges.append(ByteRange(start: start, end: start + size))
            start += size
        }
        return ranges
    }
}
