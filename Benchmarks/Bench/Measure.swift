import Foundation
import Glibc

/// What the runs of one cell gave, gathered run by run.
struct Samples {
    var speeds: [Double] = []
    var efficiencies: [Double] = []
    var tails: [Double] = []
    var rss: [Double] = []
    var cpu: [Double] = []
    var durations: [Double] = []
    var connections: [Double] = []
    var failures = 0
    var firstError: String?

    /// A failed run: its exit status, `what` went wrong, and the first line of its log.
    mutating func fail(_ result: Measurement, _ what: String) {
        failures += 1
        let line = result.log.split(separator: "\n").first.map(String.init) ?? ""
        firstError = firstError ?? "exit \(result.status)" + (what.isEmpty ? "" : ", \(what)") + (line.isEmpty ? "" : ": \(line)")
    }

    /// A run that delivered `bytes`.
    mutating func add(_ result: Measurement, bytes: Int64, stats: RunStats) {
        durations.append(result.seconds)
        let speed = Double(bytes) / result.seconds
        speeds.append(speed / 1_048_576)
        if let ideal = stats.ideal, ideal > 0 { efficiencies.append(speed / ideal) }
        if let tail = stats.tail { tails.append(tail) }
        if let count = stats.connections { connections.append(Double(count)) }
        rss.append(Double(result.peakRSS) / 1_048_576)
        cpu.append(result.cpuSeconds)
    }

    /// The cell: medians, the min-max of throughput, the largest RSS, the first failure.
    func cell(
        _ kind: ScenarioKind, peer: Peer, tool: Tool, segments: Int, bytes: Int64, runs: Int, files: Int? = nil
    ) -> Cell {
        let seconds = median(durations)
        return Cell(
            scenario: kind.rawValue, peer: peer.name, tool: tool.name, segments: segments, bytes: bytes,
            runs: runs, failures: failures, seconds: seconds, mibps: median(speeds),
            mibpsMin: speeds.min() ?? 0, mibpsMax: speeds.max() ?? 0,
            efficiency: efficiencies.isEmpty ? nil : median(efficiencies),
            tailSeconds: tails.isEmpty ? nil : median(tails), peakRSSMiB: rss.max() ?? 0,
            cpuSeconds: median(cpu), error: firstError,
            files: files, filesPerSecond: files.flatMap { seconds > 0 ? Double($0) / seconds : nil },
            connections: connections.isEmpty ? nil : median(connections))
    }
}

/// Runs `tool` `repetitions` times on one scenario at one segment count (0: the tool's own
/// choice), saving into `target`; the cell holds the medians, the peak RSS and the first failure.
func measureCell(
    _ tool: Tool, _ kind: ScenarioKind, segments: Int, size: Int64, url: String, repetitions: Int, peer: Peer, target: String
) throws -> Cell {
    var samples = Samples()
    for _ in 0..<repetitions {
        for leftover in [target, target + ".part", target + ".st", target + ".aria2"] { unlink(leftover) }
        peer.beginRun(kind)
        let result = try measure(tool.path, tool.arguments(url, target, segments, kind.usesTLS ? peer.caFile : nil))
        let stats = peer.endRun(kind)
        let received = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? -1
        let expected = options.externalURL == nil ? size : received
        guard result.status == 0, received == expected, received > 0 else {
            samples.fail(result, "\(received) of \(expected) bytes")
            continue
        }
        samples.add(result, bytes: received, stats: stats)
    }
    unlink(target)
    return samples.cell(kind, peer: peer, tool: tool, segments: segments, bytes: size, runs: repetitions)
}
