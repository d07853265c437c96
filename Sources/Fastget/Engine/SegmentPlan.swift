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
