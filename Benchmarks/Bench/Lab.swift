import FastgetTestSupport
import Foundation
import Glibc

/// `Bench --lab`: every profile's cells, interleaved (repetition 1 of every cell, then 2, …),
/// each run verified byte for byte and bounded by a deadline, then a table and a verdict per
/// profile. See `LabNetwork` for how the links are made, `LabProfile` for the profiles.
enum Lab {
    /// The longest any run may take, seconds; a run gets 4 × the best time seen in its profile
    /// (at least `floor`), so one stuck cell costs at most a few good runs' time.
    static let ceiling = 180.0
    static let floor = 10.0

    static func run(fastget: Tool) throws {
        // First: a wrong profile name is an error also where the lab would be skipped.
        let profiles = try LabProfile.parse(options.labProfiles)
        if let missing = LabNetwork.missingPrerequisites() {
            say("\(missing): lab skipped")
            return
        }
        // One lab at a time: two would share the cores and each other's `sync`, and skew both.
        let lock = open("/run/fastget-lab.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            say("another network lab is running: lab skipped")
            return
        }
        defer { close(lock) }
        LabNetwork.removeLeftovers()
        let cleanup = LabCleanup.shared
        cleanup.installSignalHandlers()
        defer { cleanup.run() }

        let data = try DataFile(size: profiles.map(size).max()! << 20)
        cleanup.add { data.directory.remove() }
        chmod(data.directory.path, 0o755)
        let servers = try LabServers(profiles, data: data, cleanup: cleanup)
        let output = try TemporaryDirectory("fastget-lab-out", in: options.outputParent)
        cleanup.add { output.remove() }

        var tools: [(Tool, Int)] = [(fastget, 0)] + options.labSegments.sorted(by: >).map { (fastget, $0) }
        if let path = options.labBefore {
            // An earlier build's automatic count, interleaved with this one's: a before and after
            // from one run, on the same links at the same hour.
            let before = try Tool.fastget(path)
            tools.insert((Tool(name: "before", path: before.path, maxSegments: 1, arguments: before.arguments), 0), at: 1)
        }
        if options.compare {
            let anchors = Tool.anchors()
            tools += anchors.found.map { ($0, $0.maxSegments > 1 ? 16 : 1) }
            if !anchors.missing.isEmpty { say("anchors not on PATH: \(anchors.missing.joined(separator: ", "))") }
        }
        say("network lab: \(options.repetitions) repetitions, deadline 4 x the profile's best run (\(Int(floor))-\(Int(ceiling)) s)")
        var summaries: [String] = []
        for profile in profiles {
            let cells = try measureProfile(profile, tools: tools, servers: servers, data: data, output: output)
            if let line = LabReport.summary(profile.name, cells) { summaries.append(line) }
        }
        say("\nsummary (auto = fastget without -n):")
        summaries.forEach { say($0) }
    }

    /// A profile's file size, MiB.
    static func size(_ profile: LabProfile) -> Int64 {
        options.labSizeMiB ?? (options.quick ? max(profile.sizeMiB / 4, 1) : profile.sizeMiB)
    }

    private static func measureProfile(
        _ profile: LabProfile, tools: [(Tool, Int)], servers: LabServers, data: DataFile, output: TemporaryDirectory
    ) throws -> [LabCell] {
        let bytes = size(profile) << 20
        let served = try data.prefix(bytes, in: data.directory.path)
        guard let digest = SHA256.hex(ofFile: served) else { throw HarnessFailure("cannot read \(served)") }
        let url = try servers.prepare(profile, size: bytes)
        say("\n\(profile.name): \(profile.summary), \(bytes >> 20) MiB")
        var cells = tools.map { LabCell(tool: $0.0.name, segments: $0.1) }
        var best: Double?
        for repetition in 1...options.repetitions {
            for (index, (tool, segments)) in tools.enumerated() {
                let deadline = best.map { min(ceiling, max(floor, 4 * $0)) } ?? ceiling
                var environment: [String: String] = [:]
                if let trace = options.labTrace, tool.name == "fastget", segments == 0 {
                    environment["FASTGET_TRACE"] = "\(trace)/\(profile.name)-\(repetition).trace"
                }
                let target = output.file("out-\(tool.name).bin")
                let run = try once(
                    tool, segments: segments, url: url, target: target, expected: (bytes, digest), deadline: deadline,
                    servers: servers, profile: profile, environment: environment)
                cells[index].runs.append(run)
                if run.failure == nil && !run.killed { best = min(best ?? run.seconds, run.seconds) }
            }
            FileHandle.standardError.write("  \(profile.name): repetition \(repetition) of \(options.repetitions) done\n".data(using: .utf8)!)
        }
        say(LabReport.header)
        cells.forEach { say(LabReport.row($0, bytes: bytes)) }
        return cells
    }

    /// One run: the tool in the client namespace (or on loopback), bounded by `deadline`, its
    /// file checked by size and SHA-256, the connections it opened counted on the server.
    private static func once(
        _ tool: Tool, segments: Int, url: String, target: String, expected: (size: Int64, digest: String), deadline: Double,
        servers: LabServers, profile: LabProfile, environment: [String: String]
    ) throws -> LabRun {
        // Nothing of an earlier run may be there: a killed run's journal or state file would
        // make the next cell resume instead of starting cold.
        let directory = (target as NSString).deletingLastPathComponent
        func empty() {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] { unlink(directory + "/" + name) }
        }
        empty()
        defer { empty() }
        sync()
        servers.beginRun(profile)
        let result = try Bench.measure(
            tool.path, tool.arguments(url, target, segments, nil), timeout: deadline, wrapper: servers.wrapper(profile),
            environment: environment)
        // Until the bytes are durable, for every tool alike: fastget syncs before it exits, the
        // others leave it to whoever comes next.
        let seconds = result.killed ? deadline : result.seconds + (syncSeconds(target) ?? 0)
        var run = LabRun(seconds: seconds, killed: result.killed)
        run.connections = servers.endRun(profile)
        if result.killed { return run }
        let received = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? -1
        if result.status != 0 {
            let line = result.log.split(separator: "\n").first.map { ": \($0)" } ?? ""
            run.failure = "exit \(result.status)\(line)"
        } else if received != expected.size {
            run.failure = "\(received) of \(expected.size) bytes"
        } else if SHA256.hex(ofFile: target) != expected.digest {
            run.failure = "other bytes (sha-256 differs)"
        }
        return run
    }
}

/// What must be undone however Bench ends: run by `run()` (normal end, a thrown error) or by
/// the SIGINT/SIGTERM handler, once.
final class LabCleanup: @unchecked Sendable {
    static let shared = LabCleanup()
    private let lock = NSLock()
    private var actions: [() -> Void] = []
    private var sources: [DispatchSourceSignal] = []

    /// Adds an action; they run last added first.
    func add(_ action: @escaping () -> Void) { lock.withLock { actions.append(action) } }

    func run() {
        let pending = lock.withLock { () -> [() -> Void] in
            defer { actions.removeAll() }
            return actions
        }
        pending.reversed().forEach { $0() }
    }

    /// On SIGINT or SIGTERM: end the running tool (its launcher kills it), clean up, exit.
    func installSignalHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                if let pid = RunningTool.current.withLock({ $0 }) { kill(pid, SIGTERM) }
                FileHandle.standardError.write("Bench: interrupted, cleaning up\n".data(using: .utf8)!)
                run()
                exit(128 + signalNumber)
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }
}
