/// A segment's range and watermark at one moment: `[start, written)` is on disk, `[written,
/// end)` is still to fetch. What the journal records and a resumed table starts from.
package struct SegmentRecord: Sendable, Equatable {
    package var start: Int64
    package var end: Int64
    package var written: Int64

    package init(start: Int64, end: Int64, written: Int64) {
        self.start = start
        self.end = end
        self.written = written
    }
}
