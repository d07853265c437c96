import Foundation

/// One cell of the table: a tool at a segment count in a scenario, over several runs. Segments
/// 0 is fastget's automatic count (no `-n`); in the many scenarios, the downloads at once.
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
    /// The many scenarios: files per run, and median files per second.
    var files: Int? = nil
    var filesPerSecond: Double? = nil
    /// Median number of connections that carried data, as the server saw them.
    var connections: Double? = nil
    /// Median seconds until the file was durable: wall time plus an fsync timed after exit.
    var durableSeconds: Double? = nil
    /// Where the fixed costs of a run went (embedded server only).
    var phases: Phases? = nil
}

/// A run's start as the embedded server saw it, medians in seconds: from the spawn to the
/// first data response's start (process start, probe), and from the first to the last data
/// response's start (plan, threads, the other connections). The end is not measured this way:
/// the server notices that a client stopped reading an open-ended answer (the probe's
/// `bytes=0-`) only at its next send, after the client may already have exited.
struct Phases: Codable {
    let lead: Double
    let ramp: Double
}

enum Report {
    private static let widths = [12, 10, 10, 9, 28, 9, 9, 10]
    static let header =
        zip(["scenario", "peer", "tool", "N", "MiB/s (min-max)", "eff", "tail", "RSS MiB"], widths).map { pad($0, $1) }.joined()
        + "CPU s   durable"

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// The N column: the count; for fastget's automatic count "auto/C", and for the many
    /// scenarios "P/C", with C the median number of connections that carried data.
    private static func count(_ cell: Cell) -> String {
        guard cell.segments == 0 || cell.files != nil else { return "\(cell.segments)" }
        return (cell.segments == 0 ? "auto" : "\(cell.segments)") + (cell.connections.map { String(format: "/%.0f", $0) } ?? "")
    }

    static func row(_ cell: Cell) -> String {
        let start = zip([cell.scenario, cell.peer, cell.tool, count(cell)], widths).map { pad($0, $1) }.joined()
        if cell.failures == cell.runs { return start + "failed: \(cell.error ?? "?")" }
        var speed =
            cell.scenario == ScenarioKind.tiny.rawValue
            ? String(format: "%.1f ms per download", cell.seconds * 1000)
            : String(format: "%.0f (%.0f-%.0f)", cell.mibps, cell.mibpsMin, cell.mibpsMax)
        if let rate = cell.filesPerSecond { speed += String(format: " %.0f files/s", rate) }
        let efficiency = cell.efficiency.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
        let tail = cell.tailSeconds.map { String(format: "%.2fs", $0) } ?? "-"
        var line = start + zip([speed, efficiency, tail, String(format: "%.1f", cell.peakRSSMiB)], widths.dropFirst(4)).map { pad($0, $1) }.joined()
        line += pad(String(format: "%.3f", cell.cpuSeconds), 8)
        if let durable = cell.durableSeconds { line += String(format: "%.3fs", durable) }
        if cell.failures > 0 { line += "  (\(cell.failures) of \(cell.runs) runs failed: \(cell.error ?? "?"))" }
        if options.phases, let phases = cell.phases {
            line += String(
                format: "\n%@first request %.1f ms after the spawn, the last %.1f ms later", pad("", 41), phases.lead * 1000,
                phases.ramp * 1000)
        }
        return line
    }

    /// fastget against the best anchor: raw scenarios by throughput (best anchor at any N),
    /// capped scenarios by efficiency at the same N, tiny by time, many by files per second,
    /// auto (fastget's own count) against the anchors' single connection. auto-capped has no
    /// anchors: its line is fastget's own count against the ideal of 16 connections.
    static func comparison(_ cells: [Cell]) -> [String] {
        var lines: [String] = []
        let scenarios = cells.map(\.scenario).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for scenario in scenarios {
            guard let kind = ScenarioKind(rawValue: scenario) else { continue }
            let here = cells.filter { $0.scenario == scenario && $0.failures < $0.runs }
            let anchors = here.filter { $0.tool != "fastget" && $0.tool != "before" }
            for mine in here where mine.tool == "fastget" {
                if let line = comparison(kind, mine, anchors) { lines.append(line) }
                if let before = here.first(where: { $0.tool == "before" && $0.segments == mine.segments }), let line = against(before, mine) {
                    lines.append(line)
                }
            }
        }
        return lines
    }

    /// This build against an earlier one measured run by run beside it (`--before`).
    private static func against(_ before: Cell, _ mine: Cell) -> String? {
        guard let rate = mine.filesPerSecond, let earlier = before.filesPerSecond else { return nil }
        var line = String(
            format: "%@P=%-4dfastget %.0f files/s vs before %.0f files/s: %.2fx; CPU %.3f s vs %.3f s", pad(mine.scenario, 11) as NSString,
            mine.segments, rate, earlier, rate / earlier, mine.cpuSeconds, before.cpuSeconds)
        if let durable = mine.durableSeconds, let earlierDurable = before.durableSeconds {
            line += String(format: "; durable %.3f s vs %.3f s", durable, earlierDurable)
        }
        return line
    }

    private static func comparison(_ kind: ScenarioKind, _ mine: Cell, _ anchors: [Cell]) -> String? {
        let name = pad(kind.rawValue, 11) as NSString
        switch kind {
        case .tiny:
            guard let best = anchors.min(by: { $0.seconds < $1.seconds }) else { return nil }
            return String(
                format: "%@fastget %.1f ms vs best anchor %@ %.1f ms: %.2fx", name, mine.seconds * 1000,
                best.tool as NSString, best.seconds * 1000, best.seconds / mine.seconds)
        case .raw, .rawTLS, .auto:
            if kind == .auto && mine.segments != 0 { return nil }
            guard let best = anchors.max(by: { $0.mibps < $1.mibps }) else { return nil }
            var line = String(
                format: "%@N=%@fastget %.0f MiB/s vs best anchor %@ N=%d %.0f MiB/s: %.2fx", name, pad(count(mine), 6) as NSString,
                mine.mibps, best.tool as NSString, best.segments, best.mibps, mine.mibps / best.mibps)
            // Until durable: against the anchors at the same N (for auto: at any N).
            let durable = anchors.filter { $0.durableSeconds != nil && (mine.segments == 0 || $0.segments == mine.segments) }
            if let mineDurable = mine.durableSeconds, let bestDurable = durable.min(by: { $0.durableSeconds! < $1.durableSeconds! }) {
                line += String(
                    format: "; durable %.2f s vs %@ N=%d %.2f s: %.2fx", mineDurable, bestDurable.tool as NSString, bestDurable.segments,
                    bestDurable.durableSeconds!, bestDurable.durableSeconds! / mineDurable)
            }
            return line
        case .capped, .uneven, .mirrors, .mirrorsSlow, .mirrorsDying:
            let same = anchors.filter { $0.segments == mine.segments && $0.efficiency != nil }
            guard let best = same.max(by: { $0.efficiency! < $1.efficiency! }), let mineEfficiency = mine.efficiency else { return nil }
            return String(
                format: "%@N=%-4dfastget %.1f%% vs best anchor %@ %.1f%% of ideal: %.2fx", name, mine.segments,
                mineEfficiency * 100, best.tool as NSString, best.efficiency! * 100, mineEfficiency / best.efficiency!)
        case .many, .manyTLS:
            let rated = anchors.filter { $0.filesPerSecond != nil }
            guard let best = rated.max(by: { $0.filesPerSecond! < $1.filesPerSecond! }), let mineRate = mine.filesPerSecond else { return nil }
            var line = String(
                format: "%@P=%-4dfastget %.0f files/s vs best anchor %@ %.0f files/s: %.2fx", name, mine.segments, mineRate,
                best.tool as NSString, best.filesPerSecond!, mineRate / best.filesPerSecond!)
            let durable = anchors.filter { $0.durableSeconds != nil }
            if let mineDurable = mine.durableSeconds, let bestDurable = durable.min(by: { $0.durableSeconds! < $1.durableSeconds! }) {
                line += String(
                    format: "; durable %.3f s vs %@ %.3f s: %.2fx", mineDurable, bestDurable.tool as NSString, bestDurable.durableSeconds!,
                    bestDurable.durableSeconds! / mineDurable)
            }
            if let cpu = anchors.min(by: { $0.cpuSeconds < $1.cpuSeconds }) {
                line += String(format: "; CPU %.3f s vs %@ %.3f s", mine.cpuSeconds, cpu.tool as NSString, cpu.cpuSeconds)
            }
            return line
        case .autoCapped:
            guard mine.segments == 0, let efficiency = mine.efficiency else { return nil }
            return String(
                format: "%@N=%@fastget %.1f%% of %d capped connections' capacity (no anchors)", name,
                pad(count(mine), 6) as NSString, efficiency * 100, Caps.autoIdealConnections)
        }
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
