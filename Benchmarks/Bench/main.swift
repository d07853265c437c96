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
if let conflict = options.conflict {
    FileHandle.standardError.write("Bench: \(conflict)\n".data(using: .utf8)!)
    exit(64)
}

func run() throws {
    let fastget = try Tool.fastget(options.fastgetPath)
    if options.soakKills > 0 {
        try Soak.run(kills: options.soakKills, fastget: fastget)
        return
    }
    if options.lab {
        try Lab.run(fastget: fastget)
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

    // The largest file any cell needs (the many scenarios have their own files).
    let largest =
        options.scenarios.filter { !$0.isMany }.flatMap { kind in options.counts(kind).map { options.size(kind, segments: $0) } }.max()
        ?? 0
    let peer: Peer
    var data: DataFile?
    var many: ManyFiles?
    if let url = options.externalURL {
        peer = ExternalPeer(url: url)
    } else {
        data = try DataFile(size: largest)
        if options.scenarios.contains(where: \.isMany) {
            many = try ManyFiles(count: options.manyFiles, size: options.manyFileSize, in: data!.directory)
        }
        peer = options.nginx ? try NginxPeer(data: data!) : try EmbeddedPeer(data: data!, latency: options.rttMilliseconds / 1000)
    }
    defer {
        peer.stop()
        data?.directory.remove()
    }
    let output = try TemporaryDirectory("fastget-bench-out", in: options.outputParent)
    defer { output.remove() }

    let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
    let machine = [
        "cores": "\(cpus)", "memory": "\(sysconf(Int32(_SC_PHYS_PAGES)) * sysconf(Int32(_SC_PAGESIZE)) >> 30) GiB",
        "kernel": (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "?",
    ]
    say(
        "peer: \(peer.name)" + (options.rttMilliseconds > 0 ? String(format: " (rtt %g ms)", options.rttMilliseconds) : "")
            + ", repetitions: \(options.repetitions), \(cpus) cores, output on \(fileSystemName(output.path))")
    say(Report.header)

    let cells = try measureAll(tools, peer: peer, many: many, output: output)
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

/// Every cell of every chosen scenario, printed as it is measured.
func measureAll(_ tools: [Tool], peer: Peer, many: ManyFiles?, output: TemporaryDirectory) throws -> [Cell] {
    var cells: [Cell] = []
    for kind in options.scenarios {
        // More runs steady a 1 KiB file's small numbers.
        let repetitions = kind == .tiny ? max(options.repetitions, 10) : options.repetitions
        for segments in options.counts(kind) {
            let size = options.size(kind, segments: segments)
            let urls = kind.isMany ? try peer.urls(kind, files: many!) : []
            let url = kind.isMany ? "" : kind.isMirrors ? try peer.mirrorURLs(kind, size: size)[0] : try peer.url(kind, size: size)
            if kind.isMany {
                // Run by run, every tool in turn: the machine's drift falls on all of them alike.
                var listers = tools.filter { $0.runs(kind, segments: segments) }
                if let path = options.labBefore { listers.insert(try Tool.fastget(path).named("before"), at: 1) }
                let measured = try measureManyCells(
                    listers, kind, files: many!, urls: urls, parallel: segments, repetitions: repetitions, peer: peer, output: output)
                measured.forEach { say(Report.row($0)) }
                cells += measured
                continue
            }
            for tool in tools where tool.runs(kind, segments: segments) {
                let cell = try measureCell(
                    tool, kind, segments: segments, size: size, url: url, repetitions: repetitions, peer: peer,
                    target: output.file("out-\(tool.name).bin"))
                cells.append(cell)
                say(Report.row(cell))
            }
        }
    }
    return cells
}

do {
    try run()
} catch {
    FileHandle.standardError.write("Bench: \(error)\n".data(using: .utf8)!)
    exit(1)
}
