import Fastget

/// `-v`: what the download does, a line per request, retry, steal, hedge and checkpoint.
enum Verbose {
    static func line(_ event: DownloadEvent) -> String? {
        switch event {
        case .request(let method, let url, let range):
            return "> \(method) \(url)" + (range.map { " (\($0))" } ?? "")
        case .retry(let attempt, let error):
            return "retry \(attempt): \(error.message)"
        case .steal(let range):
            return "steal: an idle connection takes bytes \(range.start)-\(range.end - 1)"
        case .hedge(let range, let won):
            return "hedge on bytes \(range.start)-\(range.end - 1) "
                + (won ? "won: the slow connection stops there" : "lost: the slow connection got there first")
        case .connectionsChanged(let count, let reason):
            return "connections: \(count) (\(reason))"
        case .checkpoint(let bytes):
            return "checkpoint: \(Format.bytes(Double(bytes))) on disk"
        default:
            return nil
        }
    }

    /// `-v`, after the download: the connection count planned, then what it took (connections
    /// opened — the summary's are the most at once —, TLS handshakes, steals, hedges, retries),
    /// last, as scripts read it. Each count with its noun in the singular or the plural.
    static func totals(_ report: DownloadReport) -> String {
        var tls = ""
        if report.fullHandshakes + report.resumedHandshakes > 0 {
            tls = " (TLS handshakes: \(report.fullHandshakes) full, \(report.resumedHandshakes) resumed)"
        }
        // The plan, as the dry run would have said it, and how many ran at once under it.
        let plan = report.plannedConnections.map { "fastget: planned \($0.text); at most \(report.workers) at once\n" } ?? ""
        return plan
            + "fastget: \(Summary.counted(report.connections, "connection")) opened\(tls), \(Summary.counted(report.steals, "steal")), "
            + "\(Summary.counted(report.hedges, "hedge")) won, \(report.hedgesLost) lost, \(Summary.counted(report.retries, "retry", plural: "retries"))\n"
    }
}
