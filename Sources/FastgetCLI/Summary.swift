import Fastget

/// The line that tells people a download is done: where it went, how much, how long, how fast.
/// One for a single download and for each download of `-i`.
enum Summary {
    /// `fastget: saved NAME (5.00 MiB in 1.20 s, 4.17 MiB/s)`, where `saved` is "saved NAME"
    /// or "wrote standard output"; `details` adds the segments, and steals, retries and resumed
    /// bytes when there were any.
    static func line(_ report: DownloadReport, saved: String, details: Bool) -> String {
        let speed = report.seconds > 0 ? Double(report.bytes) / report.seconds : 0
        var text = "fastget: \(saved) (\(Format.bytes(Double(report.bytes))) in \(Format.duration(report.seconds)), \(Format.bytes(speed))/s"
        if details {
            text += report.workers == 1 ? ", 1 segment" : ", \(report.workers) segments"
            if report.steals > 0 { text += ", \(report.steals) steals" }
            if report.retries > 0 { text += ", \(report.retries) retries" }
            if report.resumedBytes > 0 { text += ", \(Format.bytes(Double(report.resumedBytes))) resumed" }
        }
        text += ")\n"
        // With mirrors, a line per server: how much came from it, or why it was dropped.
        if details {
            for source in report.sources {
                text += "  \(source.url): \(Format.bytes(Double(source.bytes)))"
                text += source.dropped.map { " (dropped: \($0))\n" } ?? "\n"
            }
        }
        return text
    }
}
