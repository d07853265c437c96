/// `-c` on a file another downloader left with its state file beside it.
extension StartPoint {
    /// The journal entries for `destination` continued from `foreign`: what it marks done is
    /// written, the gaps are to fetch (each planned as a fresh download of its length would
    /// be); and how many bytes are done. Refused when the file cannot hold what the state file
    /// claims, or is longer than the server's.
    static func entries(
        continuing destination: String, from foreign: ForeignState, length: Int64, options: DownloadOptions
    ) throws(FastgetError) -> ([Journal.Entry], Int64) {
        let localSize = FileSystem.size(destination) ?? 0
        let claimedEnd = foreign.complete.last?.end ?? 0
        guard localSize <= length, claimedEnd <= localSize else {
            throw FastgetError(
                .cannotCreateOutput,
                "cannot continue \(destination) from \(foreign.path): the file has \(localSize) bytes, the server's \(length), and \(foreign.path) marks bytes up to \(claimedEnd) done",
                remedy: .downloadAgain)
        }
        var entries: [Journal.Entry] = []
        var cursor: Int64 = 0
        for done in foreign.complete + [ByteRange(start: length, end: length)] {
            for gap in SegmentPlan.ranges(length: done.start - cursor, options: options) where gap.count > 0 {
                entries.append(Journal.Entry(start: cursor + gap.start, end: cursor + gap.end, written: cursor + gap.start))
            }
            if done.count > 0 { entries.append(Journal.Entry(start: done.start, end: done.end, written: done.end)) }
            cursor = done.end
            // Checked as it grows: a scattered bitfield must not build a list it then refuses.
            guard entries.count <= Journal.maximumSegments else {
                throw FastgetError(
                    .cannotCreateOutput,
                    "cannot continue \(destination) from \(foreign.path): its done ranges are too scattered to record",
                    remedy: .downloadAgain)
            }
        }
        return (entries, foreign.complete.reduce(0) { $0 + $1.count })
    }
}
