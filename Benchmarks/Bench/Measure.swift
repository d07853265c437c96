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
    /// Wall time plus the fsync of the output timed after the process exited.
    var durables: [Double] = []
    var connections: [Double] = []
    /// Where a run's time went, seconds (embedded server only): spawn to the first data
    /// response's start, first to last start.
    var leads: [Double] = []
    var ramps: [Double] = []
    var failures = 0
    var firstError: String?

    /// A failed run: its exit status, `what` went wrong, and the first line of its log.
    mutating func fail(_ result: Measurement, _ what: String) {
        failures += 1
        let line = result.log.split(separator: "\n").first.map(String.init) ?? ""
        firstError = firstError ?? "exit \(result.status)" + (what.isEmpty ? "" : ", \(what)") + (line.isEmpty ? "" : ": \(line)")
    }

    /// A run that delivered `bytes`.
    mutating func add(_ result: Measurement, bytes: Int64, stats: RunStats, syncSeconds: Double? = nil) {
        durations.append(result.seconds)
        if let syncSeconds { durables.append(result.seconds + syncSeconds) }
        let speed = Double(bytes) / result.seconds
        speeds.append(speed / 1_048_576)
        if let ideal = stats.ideal, ideal > 0 { efficiencies.append(speed / ideal) }
        if let tail = stats.tail { tails.append(tail) }
        if let count = stats.connections { connections.append(Double(count)) }
        if let first = stats.firstStart, let last = stats.lastStart, result.started > 0 {
            leads.append(first - result.started)
            ramps.append(last - first)
        }
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
            connections: connections.isEmpty ? nil : median(connections),
            durableSeconds: durables.isEmpty ? nil : median(durables),
            phases: leads.isEmpty ? nil : Phases(lead: median(leads), ramp: median(ramps)))
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
        // Nothing dirty left from before (the data file, a previous tool) for this run to flush.
        sync()
        peer.beginRun(kind)
        // A mirrors scenario's servers may change from run to run (one that died is replaced).
        let arguments =
            kind.isMirrors
            ? tool.mirrorArguments!(try peer.mirrorURLs(kind, size: size), target, segments)
            : tool.arguments(url, target, segments, kind.usesTLS ? peer.caFile : nil)
        let result = try measure(tool.path, arguments)
        // First, before the server's log is read (which may wait): what the tool left dirty.
        let sync = syncSeconds(target)
        var stats = peer.endRun(kind)
        if kind.isMirrors { stats.ideal = Caps.mirrorIdeal(kind, segments: segments) }
        let received = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? -1
        let expected = options.externalURL == nil ? size : received
        guard result.status == 0, received == expected, received > 0 else {
            samples.fail(result, "\(received) of \(expected) bytes")
            continue
        }
        samples.add(result, bytes: received, stats: stats, syncSeconds: sync)
    }
    unlink(target)
    return samples.cell(kind, peer: peer, tool: tool, segments: segments, bytes: size, runs: repetitions)
}

/// Seconds an fsync of `path` takes right after the tool exited: what stands between its exit
/// and its bytes being durable (next to nothing for a tool that fsynced before it exited).
func syncSeconds(_ path: String) -> Double? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let start = monotonicNow()
    guard fsync(fd) == 0 else { return nil }
    return monotonicNow() - start
}

/// The file system `path` is on, for the header (tmpfs, ext4, …): the type of the longest
/// mount point in /proc/mounts that contains it.
func fileSystemName(_ path: String) -> String {
    let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    var best: (point: Substring, type: Substring)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count > 2 else { continue }
        let point = fields[1]
        let inside = real == point || point == "/" || real.hasPrefix(point + "/")
        // A later line mounted over an earlier one at the same point: the later one is seen.
        if inside && point.count >= (best?.point.count ?? -1) { best = (point, fields[2]) }
    }
    return best.map { String($0.type) } ?? "?"
}
