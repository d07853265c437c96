// Bench: fastget's throughput, efficiency, tail, memory and CPU by segment count, against an
// embedded loopback server (default), a local nginx (--nginx) or an external URL (--url), and
// side by side with the anchors found on PATH (--compare).
import FastgetTestSupport
import Foundation
import Glibc

/// Prints a line at once, even into a pipe (Swift's `print` is block-buffered there).
func say(_ line: String) {
    FileHandle.standardOutput.write((line + "\n").data(using: .utf8)!)
}

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write("Bench: \(error)\n\(BenchOptions.usage)".data(using: .utf8)!)
    exit(64)
}

func run() throws {
    let fastget = try Tool.fastget(options.fastgetPath)
    if options.soakKills > 0 {
        try Soak.run(kills: options.soakKills, fastget: fastget)
        return
    }
    if options.startupRuns > 0 {
        try Startup.run(runs: options.startupRuns, fastget: fastget)
        return
    }
    var tools = [fastget]
    if options.compare {
        let anchors = Tool.anchors()
        tools += anchors.found
        say(
            "anchors: \(anchors.found.map(\.name).joined(separator: ", "))"
                + (anchors.missing.isEmpty ? "" : "; not on PATH: \(anchors.missing.joined(separator: ", "))"))
    }

    // The largest file any cell needs.
    let largest = options.scenarios.flatMap { kind in options.segments.map { options.size(kind, segments: $0) } }.max() ?? 0
    let peer: Peer
    var data: DataFile?
    if let url = options.externalURL {
        peer = ExternalPeer(url: url)
    } else {
        data = try DataFile(size: largest)
        peer = options.nginx ? try NginxPeer(data: data!) : try EmbeddedPeer(data: data!)
    }
    defer {
        peer.stop()
        data?.directory.remove()
    }
    let output = try TemporaryDirectory("fastget-bench-out")
    defer { output.remove() }

    let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
    let machine = [
        "cores": "\(cpus)", "memory": "\(sysconf(Int32(_SC_PHYS_PAGES)) * sysconf(Int32(_SC_PAGESIZE)) >> 30) GiB",
        "kernel": (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "?",
    ]
    say("peer: \(peer.name), repetitions: \(options.repetitions), \(cpus) cores")
    say(Report.header)

    var cells: [Cell] = []
    for kind in options.scenarios {
        // Segment counts mean nothing for a 1 KiB file; more runs steady its small numbers.
        let counts = kind == .tiny ? [1] : options.segments
        let repetitions = kind == .tiny ? max(options.repetitions, 10) : options.repetitions
        for segments in counts {
            let size = options.size(kind, segments: segments)
            let url = try peer.url(kind, size: size)
            for tool in tools where segments <= tool.maxSegments && (tool.maxSegments > 1 || segments == 1 || tool.name == "fastget") {
                let cell = try measureCell(
                    tool, kind, segments: segments, size: size, url: url, repetitions: repetitions, peer: peer,
                    target: output.file("out-\(tool.name).bin"))
                cells.append(cell)
                say(Report.row(cell))
            }
        }
    }
    if options.compare {
        say("\nfastget against the best anchor:")
        Report.comparison(cells).forEach { say($0) }
    }
    if let path = options.jsonPath {
        try Report.writeJSON(cells, machine: machine, to: path)
        say("JSON written to \(path)")
    }
    if cells.contains(where: { $0.tool == "fastget" && $0.failures > 0 }) {
        throw HarnessFailure("some fastget runs failed")
    }
}

/// Runs `tool` `repetitions` times on one scenario at one segment count, saving into `target`;
/// the cell holds the medians, the peak RSS and the first failure.
func measureCell(
    _ tool: Tool, _ kind: ScenarioKind, segments: Int, size: Int64, url: String, repetitions: Int, peer: Peer, target: String
) throws -> Cell {
    var speeds: [Double] = []
    var efficiencies: [Double] = []
    var tails: [Double] = []
    var rss: [Double] = []
    var cpu: [Double] = []
    var failures = 0
    var firstError: String?
    var durations: [Double] = []
    for _ in 0..<repetitions {
        for leftover in [target, target + ".part", target + ".st", target + ".aria2"] { unlink(leftover) }
        peer.beginRun(kind)
        let result = try measure(tool.path, tool.arguments(url, target, segments, kind.usesTLS ? peer.caFile : nil))
        let stats = peer.endRun(kind)
        let received = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? -1
        let expected = options.externalURL == nil ? size : received
        guard result.status == 0, received == expected, received > 0 else {
            failures += 1
            firstError =
                firstError ?? "exit \(result.status), \(received) of \(expected) bytes: \(result.log.split(separator: "\n").first ?? "")"
            continue
        }
        durations.append(result.seconds)
        let speed = Double(received) / result.seconds
        speeds.append(speed / 1_048_576)
        if let ideal = stats.ideal, ideal > 0 { efficiencies.append(speed / ideal) }
        if let tail = stats.tail { tails.append(tail) }
        rss.append(Double(result.peakRSS) / 1_048_576)
        cpu.append(result.cpuSeconds)
    }
    unlink(target)
    return Cell(
        scenario: kind.rawValue, peer: peer.name, tool: tool.name, segments: segments, bytes: size,
        runs: repetitions, failures: failures, seconds: median(durations), mibps: median(speeds),
        mibpsMin: speeds.min() ?? 0, mibpsMax: speeds.max() ?? 0,
        efficiency: efficiencies.isEmpty ? nil : median(efficiencies),
        tailSeconds: tails.isEmpty ? nil : median(tails), peakRSSMiB: rss.max() ?? 0,
        cpuSeconds: median(cpu), error: firstError)
}

do {
    try run()
} catch {
    FileHandle.standardError.write("Bench: \(error)\n".data(using: .utf8)!)
    exit(1)
}
