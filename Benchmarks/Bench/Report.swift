import Foundation

/// One cell of the table: a tool at a segment count in a scenario, over several runs.
struct Cell: Codable {
    let scenario: String
    let peer: String
    let tool: String
    let segments: Int
    let bytes: Int64
    let runs: Int
    let failures: Int
    /// Median wall time of the process, seconds.
    let seconds: Double
    /// Median, min and max throughput, MiB/s.
    let mibps: Double
    let mibpsMin: Double
    let mibpsMax: Double
    /// Median throughput over the ideal (capped scenarios only).
    let efficiency: Double?
    /// Median seconds between the first and last data response finishing.
    let tailSeconds: Double?
    /// Largest peak RSS of the runs, MiB.
    let peakRSSMiB: Double
    /// Median CPU seconds (user + system) of the process.
    let cpuSeconds: Double
    let error: String?
}

enum Report {
    static let header = "scenario  peer      tool      N    MiB/s (min-max)            eff      tail     RSS MiB   CPU s"

    static func row(_ cell: Cell) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
        if cell.failures == cell.runs {
            return pad(cell.scenario, 10) + pad(cell.peer, 10) + pad(cell.tool, 10) + pad("\(cell.segments)", 5)
                + "failed: \(cell.error ?? "?")"
        }
        let speed =
            cell.scenario == ScenarioKind.tiny.rawValue
            ? String(format: "%.1f ms per download", cell.seconds * 1000)
            : String(format: "%.0f (%.0f-%.0f)", cell.mibps, cell.mibpsMin, cell.mibpsMax)
        let efficiency = cell.efficiency.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
        let tail = cell.tailSeconds.map { String(format: "%.2fs", $0) } ?? "-"
        var line = pad(cell.scenario, 10) + pad(cell.peer, 10) + pad(cell.tool, 10) + pad("\(cell.segments)", 5)
        line += pad(speed, 27) + pad(efficiency, 9) + pad(tail, 9) + pad(String(format: "%.1f", cell.peakRSSMiB), 10)
        line += String(format: "%.2f", cell.cpuSeconds)
        if cell.failures > 0 { line += "  (\(cell.failures) of \(cell.runs) runs failed: \(cell.error ?? "?"))" }
        return line
    }

    /// fastget against the best anchor: raw scenarios by throughput (best anchor at any N),
    /// capped scenarios by efficiency at the same N.
    static func comparison(_ cells: [Cell]) -> [String] {
        var lines: [String] = []
        let scenarios = cells.map(\.scenario).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for scenario in scenarios {
            let here = cells.filter { $0.scenario == scenario && $0.failures < $0.runs }
            let anchors = here.filter { $0.tool != "fastget" }
            for mine in here where mine.tool == "fastget" {
                if scenario == ScenarioKind.tiny.rawValue {
                    guard let best = anchors.min(by: { $0.seconds < $1.seconds }) else { continue }
                    lines.append(
                        String(
                            format: "%-9@ fastget %.1f ms vs best anchor %@ %.1f ms: %.2fx",
                            scenario as NSString, mine.seconds * 1000, best.tool as NSString, best.seconds * 1000,
                            best.seconds / mine.seconds))
                } else if scenario.hasPrefix("raw") {
                    guard let best = anchors.max(by: { $0.mibps < $1.mibps }) else { continue }
                    lines.append(
                        String(
                            format: "%-9@ N=%-3d fastget %.0f MiB/s vs best anchor %@ N=%d %.0f MiB/s: %.2fx",
                            scenario as NSString, mine.segments, mine.mibps, best.tool as NSString, best.segments,
                            best.mibps, mine.mibps / best.mibps))
                } else {
                    let same = anchors.filter { $0.segments == mine.segments && $0.efficiency != nil }
                    guard let best = same.max(by: { $0.efficiency! < $1.efficiency! }), let mineEfficiency = mine.efficiency else { continue }
                    lines.append(
                        String(
                            format: "%-9@ N=%-3d fastget %.1f%% vs best anchor %@ %.1f%% of ideal: %.2fx",
                            scenario as NSString, mine.segments, mineEfficiency * 100, best.tool as NSString,
                            best.efficiency! * 100, mineEfficiency / best.efficiency!))
                }
            }
        }
        return lines
    }

    static func writeJSON(_ cells: [Cell], machine: [String: String], to path: String) throws {
        struct Document: Codable {
            let date: String
            let machine: [String: String]
            let cells: [Cell]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let document = Document(date: ISO8601DateFormatter().string(from: Date()), machine: machine, cells: cells)
        try encoder.encode(document).write(to: URL(fileURLWithPath: path))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
