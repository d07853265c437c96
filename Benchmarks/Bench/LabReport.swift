import Foundation

/// One run of one tool in a lab profile.
struct LabRun: Equatable {
    /// Wall time of the process; for a run past its deadline, the deadline.
    var seconds: Double
    /// Ended at the deadline.
    var killed = false
    /// Why the run does not count (exit status, wrong bytes); nil when it delivered the file.
    var failure: String? = nil
    /// Connections the server saw the run open; nil when unknown.
    var connections: Int? = nil
}

/// A tool at one connection count (0: fastget's own choice, no `-n`) in one profile.
struct LabCell: Equatable {
    let tool: String
    let segments: Int
    var runs: [LabRun] = []

    var label: String { segments == 0 ? "auto" : "-n \(segments)" }
    /// The runs that delivered the file or ran into the deadline (a lower bound on their time).
    private var timed: [LabRun] { runs.filter { $0.failure == nil } }
    /// Median seconds, a killed run counting as its deadline; nil when every run failed.
    var median: Double? { timed.isEmpty ? nil : Bench.median(timed.map(\.seconds)) }
    var worst: LabRun? { timed.max { $0.seconds < $1.seconds } }
    /// Whether the median is itself a run that was killed (the true time is larger).
    var medianIsBound: Bool {
        guard let median else { return false }
        return timed.contains { $0.killed && $0.seconds <= median }
    }
    var connections: Double? {
        let counts = timed.compactMap(\.connections)
        return counts.isEmpty ? nil : Bench.median(counts.map(Double.init))
    }
}

enum LabReport {
    /// The distinct connection serials in nginx access log lines (`METHOD URI STATUS "RANGE"
    /// BYTES CONNECTION MSEC`): the connections that sent at least one request, counted the
    /// same way for every tool.
    static func connections(inLog lines: some Sequence<Substring>) -> Int {
        Set(
            lines.compactMap { line -> Substring? in
                let fields = line.split(separator: " ")
                return fields.count >= 7 ? fields[5] : nil
            }
        ).count
    }

    static let header = "  tool      N        median      worst        MB/s     connections"

    /// `seconds` as "6.27 s", or "> 120 s" for a lower bound.
    static func time(_ seconds: Double, bound: Bool) -> String {
        bound ? String(format: "> %.0f s", seconds) : String(format: "%.2f s", seconds)
    }

    /// A cell's line: median, worst run, MB/s at the median, connections opened (median).
    static func row(_ cell: LabCell, bytes: Int64) -> String {
        let start = pad("  " + cell.tool, 12) + pad(cell.label, 9)
        guard let median = cell.median, let worst = cell.worst else {
            return start + "failed: \(cell.runs.first?.failure ?? "?")"
        }
        var line = start + pad(time(median, bound: cell.medianIsBound), 12) + pad(time(worst.seconds, bound: worst.killed), 13)
        line += pad(cell.medianIsBound ? "-" : String(format: "%.1f", Double(bytes) / median / 1e6), 9)
        line += cell.connections.map { String(format: "%.0f", $0) } ?? "-"
        let failed = cell.runs.filter { $0.failure != nil }
        if let first = failed.first?.failure { line += "  (\(failed.count) of \(cell.runs.count) runs failed: \(first))" }
        return line
    }

    /// The profile's verdict: auto's median and worst against the best fixed N's median, auto
    /// against the best anchor, and the connections auto opened. Nil without an auto cell.
    /// fastget's default `--max-per-host`: the most an automatic count uses on one host.
    static let perHostCap = 16

    static func summary(_ profile: String, _ cells: [LabCell]) -> String? {
        guard let auto = cells.first(where: { $0.tool == "fastget" && $0.segments == 0 }), let mine = auto.median,
            let worst = auto.worst
        else { return nil }
        var parts = [String(format: "%@: auto %@", profile, time(mine, bound: auto.medianIsBound))]
        // Within the per-host cap (16 by default), which auto never passes; -n 32 is in the table.
        let fixed = cells.filter {
            $0.tool == "fastget" && $0.segments > 0 && $0.segments <= perHostCap && $0.median != nil && !$0.medianIsBound
                && $0.runs.allSatisfy { $0.failure == nil }
        }
        if let best = fixed.min(by: { $0.median! < $1.median! }) {
            parts.append(
                String(
                    format: "best fixed (N <= 16) %@ %.2f s: median %.2fx, worst %.2fx", best.label, best.median!, mine / best.median!,
                    worst.seconds / best.median!))
        }
        let anchors = cells.filter { $0.tool != "fastget" && $0.tool != "before" && $0.median != nil && !$0.medianIsBound }
        if let best = anchors.min(by: { $0.median! < $1.median! }) {
            parts.append(String(format: "best anchor %@ %.2f s: %.2fx", best.tool, best.median!, mine / best.median!))
        }
        if let connections = auto.connections { parts.append(String(format: "auto opened %.0f connections", connections)) }
        return parts.joined(separator: "; ")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
