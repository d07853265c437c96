package enum SegmentPlan {
    /// The ranges a fresh download of `length` bytes starts with:
    /// `ConnectionPlan.freshSegments` of them, none smaller than `options.minimumSegmentSize`.
    static func ranges(length: Int64, options: DownloadOptions) -> [ByteRange] {
        tiles(length: length, segments: ConnectionPlan.freshSegments(options), minimumSize: options.minimumSegmentSize)
    }

    /// A resumed journal's segments for this run: with a fixed count, re-split to it
    /// (`resplit`); with an automatic one as they are, as added connections split by stealing.
    static func resumed(_ records: [SegmentRecord], options: DownloadOptions) -> [SegmentRecord] {
        options.segments.map { resplit(records, segments: $0, minimumSize: options.minimumSegmentSize) } ?? records
    }

    /// A resumed journal's segments, the unfinished ones split (largest unwritten part first,
    /// in halves) until `segments` of them are unfinished or halves would be smaller than
    /// `minimumSize`: the count the command asks for now applies to what is left (a download
    /// begun with `-n 2` and resumed with `-n 16` uses 16). The bytes claimed stay the same.
    package static func resplit(_ records: [SegmentRecord], segments: Int, minimumSize: Int64) -> [SegmentRecord] {
        var records = records
        while records.filter({ $0.written < $0.end }).count < segments {
            guard let index = records.indices.max(by: { records[$0].end - records[$0].written < records[$1].end - records[$1].written })
            else { break }
            let record = records[index]
            let half = (record.end - record.written) / 2
            guard half >= max(1, minimumSize) else { break }
            let middle = record.written + half
            records[index] = SegmentRecord(start: record.start, end: middle, written: record.written)
            records.insert(SegmentRecord(start: middle, end: record.end, written: middle), at: index + 1)
        }
        return records
    }

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
