import Fastget

/// The line that tells people a download is done: where it went, how much, how long, how fast.
/// One for a single download and for each download of `-i`.
enum Summary {
    /// `fastget: saved NAME (5.00 MiB in 1.20 s, 4.17 MiB/s)`, where `saved` is "saved NAME"
    /// or "wrote standard output". The speed is that of the bytes fetched in this run (a resumed
    /// download says how many that was); `details` adds the connections, and steals, retries and
    /// resumed bytes when there were any. The connections are the most that ran at once (`-v`
    /// counts the ones opened), so they say so past one.
    static func line(_ report: DownloadReport, saved: String, details: Bool) -> String {
        let fetched = max(0, report.bytes - report.resumedBytes)
        let speed = report.seconds > 0 ? Double(fetched) / report.seconds : 0
        var text = "fastget: \(saved) (\(Format.bytes(Double(report.bytes)))"
        if report.resumedBytes > 0 { text += "; \(Format.bytes(Double(fetched))) fetched" }
        text += " in \(Format.duration(report.seconds)), \(Format.bytes(speed))/s"
        if details {
            text += ", " + counted(report.workers, "connection") + (report.workers > 1 ? " at once" : "")
            if report.steals > 0 { text += ", " + counted(report.steals, "steal") }
            if report.retries > 0 { text += ", " + counted(report.retries, "retry", plural: "retries") }
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

    /// "1 steal", "2 steals".
    static func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
