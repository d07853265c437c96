import Foundation
import Glibc
import Synchronization

/// A downloader Bench runs as a whole process: fastget itself or an anchor.
struct Tool {
    let name: String
    let path: String
    /// The most segments it can use; 1 for single-connection tools.
    let maxSegments: Int
    /// One file: segments 0 means the tool's own choice (only fastget is asked for that).
    let arguments: (_ url: String, _ output: String, _ segments: Int, _ caFile: String?) -> [String]
    /// A list of files into a directory, `parallel` at once; nil when the tool has no such mode.
    let listArguments: ListArguments?

    typealias ListArguments = (_ list: String, _ urls: [String], _ directory: String, _ parallel: Int, _ caFile: String?) -> [String]
    /// One file from several servers (the first URL names it); nil when the tool cannot.
    var mirrorArguments: ((_ urls: [String], _ output: String, _ segments: Int) -> [String])?

    init(
        name: String, path: String, maxSegments: Int, listArguments: ListArguments? = nil,
        arguments: @escaping (String, String, Int, String?) -> [String]
    ) {
        self.name = name
        self.path = path
        self.maxSegments = maxSegments
        self.listArguments = listArguments
        self.arguments = arguments
    }

    /// Whether this tool has a cell in `kind` at `segments`: fastget always; an anchor where it
    /// can split that far, at N = 1 only for `auto` (their best single connection against
    /// fastget's own choice), with a list mode for `many`, never for `auto-capped`.
    func runs(_ kind: ScenarioKind, segments: Int) -> Bool {
        if name == "fastget" { return true }
        switch kind {
        case .many, .manyTLS: return listArguments != nil
        case .mirrors, .mirrorsSlow, .mirrorsDying: return mirrorArguments != nil
        case .auto: return segments == 1
        case .autoCapped: return false
        case .raw, .rawTLS, .capped, .uneven, .tiny: return segments <= maxSegments && (maxSegments > 1 || segments == 1)
        }
    }

    /// The same tool under another name (an earlier build beside this one: "before").
    func named(_ name: String) -> Tool {
        var tool = Tool(name: name, path: path, maxSegments: maxSegments, listArguments: listArguments, arguments: arguments)
        tool.mirrorArguments = mirrorArguments
        return tool
    }

    /// fastget: `path`, or the one built next to Bench (Bench depends on the CLI target).
    /// Segments 0: no `-n`, the default (the automatic connection count).
    static func fastget(_ path: String? = nil) throws -> Tool {
        let directory = URL(fileURLWithPath: try selfExecutable()).deletingLastPathComponent().path
        let path = path ?? directory + "/fastget"
        guard FileManager.default.isExecutableFile(atPath: path) else { throw HarnessFailure("fastget is not built at \(path)") }
        var tool = Tool(
            name: "fastget", path: path, maxSegments: 64,
            listArguments: { list, _, directory, parallel, ca in
                ["-q", "-i", list, "-j", "\(parallel)", "-d", directory] + (ca.map { ["--cacert", $0] } ?? [])
            },
            arguments: { url, output, segments, ca in
                ["-q", "--overwrite"] + (segments > 0 ? ["-n", "\(segments)"] : []) + ["-o", output]
                    + (ca.map { ["--cacert", $0] } ?? []) + [url]
            })
        tool.mirrorArguments = { urls, output, segments in ["-q", "--overwrite", "-n", "\(segments)", "-o", output] + urls }
        return tool
    }

    /// The anchors found on PATH, and the names of those missing.
    static func anchors() -> (found: [Tool], missing: [String]) {
        var found: [Tool] = []
        var missing: [String] = []
        func add(
            _ name: String, _ maxSegments: Int, list: ListArguments? = nil, _ arguments: @escaping (String, String, Int, String?) -> [String]
        ) {
            if let path = findExecutable(name) {
                found.append(Tool(name: name, path: path, maxSegments: maxSegments, listArguments: list, arguments: arguments))
            } else {
                missing.append(name)
            }
        }
        add("curl", 1, list: ListMode.curl) { url, output, _, ca in ["-s", "-S", "-f", "-o", output] + (ca.map { ["--cacert", $0] } ?? []) + [url] }
        add("wget2", 1, list: ListMode.wget2) { url, output, _, ca in ["-q", "-O", output] + (ca.map { ["--ca-certificate=\($0)"] } ?? []) + [url] }
        add("aria2c", 16, list: ListMode.aria2c) { url, output, segments, ca in
            [
                "-q", "-x", "\(segments)", "-s", "\(segments)", "-k", "1M", "--file-allocation=none", "--allow-overwrite=true",
                "--auto-file-renaming=false", "-d", (output as NSString).deletingLastPathComponent,
                "-o", (output as NSString).lastPathComponent,
            ] + (ca.map { ["--ca-certificate=\($0)"] } ?? []) + [url]
        }
        // aria2c: several URIs of one file; -s splits it into that many connections in all.
        if let index = found.firstIndex(where: { $0.name == "aria2c" }) {
            found[index].mirrorArguments = { urls, output, segments in
                [
                    "-q", "-x", "\(segments)", "-s", "\(segments)", "-k", "1M", "--file-allocation=none", "--allow-overwrite=true",
                    "--auto-file-renaming=false", "--max-tries=2", "-d", (output as NSString).deletingLastPathComponent,
                    "-o", (output as NSString).lastPathComponent,
                ] + urls
            }
        }
        add("axel", 64) { url, output, segments, ca in
            ["-q", "-n", "\(segments)", "-o", output] + (ca == nil ? [] : ["-k"]) + [url]
        }
        add("lftp", 64) { url, output, segments, ca in
            let trust = ca.map { "set ssl:ca-file \($0); " } ?? ""
            return ["-c", "\(trust)set net:max-retries 1; pget -n \(segments) '\(url)' -o '\(output)'"]
        }
        return (found, missing)
    }
}

/// How the anchors download a list of files, each under its own name in one directory, a
/// number at once, failing rather than retrying for long, quietly.
enum ListMode {
    static func curl(_: String, _ urls: [String], _ directory: String, _ parallel: Int, _ ca: String?) -> [String] {
        ["-s", "-S", "-f", "-Z", "--parallel-max", "\(parallel)", "--output-dir", directory, "--remote-name-all"]
            + (ca.map { ["--cacert", $0] } ?? []) + urls
    }
    static func wget2(_ list: String, _: [String], _ directory: String, _ parallel: Int, _ ca: String?) -> [String] {
        ["-q", "-i", list, "--max-threads=\(parallel)", "-P", directory, "--no-host-directories", "--no-directories", "--tries=2"]
            + (ca.map { ["--ca-certificate=\($0)"] } ?? [])
    }
    static func aria2c(_ list: String, _: [String], _ directory: String, _ parallel: Int, _ ca: String?) -> [String] {
        [
            "-q", "-i", list, "-j", "\(parallel)", "-x", "1", "-d", directory, "--file-allocation=none", "--allow-overwrite=true",
            "--auto-file-renaming=false", "--console-log-level=error", "--summary-interval=0", "--max-tries=2",
        ] + (ca.map { ["--ca-certificate=\($0)"] } ?? [])
    }
}

/// What one process run cost.
struct Measurement {
    let status: Int32
    let seconds: Double
    /// Peak resident set, bytes.
    let peakRSS: Int64
    /// User + system CPU seconds.
    let cpuSeconds: Double
    let log: String
    /// CLOCK_MONOTONIC seconds just before the spawn.
    var started = 0.0
    /// Ended by the deadline (`measure`'s timeout).
    var killed = false
}

/// Runs `path` with `arguments` through `bench-launcher`, which measures wall time, peak RSS and
/// CPU time of that process alone; `wrapper` goes before the launcher (e.g. `ip netns exec NS`,
/// which execs it), `environment` is added to Bench's own. After `timeout` seconds the launcher
/// gets SIGTERM, on which it kills the tool and still reports it (status 137,
/// `Measurement.killed`); SIGKILL follows if it has not ended 5 s later.
func measure(
    _ path: String, _ arguments: [String], timeout: Double = 600, wrapper: [String] = [], environment: [String: String] = [:]
) throws -> Measurement {
    let launcher = URL(fileURLWithPath: try selfExecutable()).deletingLastPathComponent().path + "/bench-launcher"
    let logPath = NSTemporaryDirectory() + "fastget-bench-\(getpid()).log"
    let process = Process()
    let command = wrapper + [launcher, logPath, path] + arguments
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let pid = process.processIdentifier
    RunningTool.current.withLock { $0 = pid }
    defer { RunningTool.current.withLock { $0 = nil } }
    let fired = Fired()
    let watchdog = DispatchWorkItem {
        fired.set()
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { if process.isRunning { kill(pid, SIGKILL) } }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let report = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    watchdog.cancel()
    let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    unlink(logPath)
    let fields = report.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    guard fields.count == 5, let status = Int32(fields[0]), let seconds = Double(fields[1]),
        let rss = Int64(fields[2]), let cpu = Double(fields[3]), let start = Double(fields[4])
    else {
        throw HarnessFailure("bench-launcher failed for \(path): \(report)")
    }
    var result = Measurement(status: status, seconds: seconds, peakRSS: rss * 1024, cpuSeconds: cpu, log: log, started: start)
    result.killed = fired.value
    return result
}

/// Whether the deadline's watchdog fired.
private final class Fired: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    func set() { lock.withLock { fired = true } }
    var value: Bool { lock.withLock { fired } }
}

/// The launcher running now, for a SIGINT or SIGTERM to Bench to end (`Lab`'s clean-up).
enum RunningTool {
    static let current = Mutex<pid_t?>(nil)
}

func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func selfExecutable() throws -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { throw HarnessFailure("cannot find Bench's own path") }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

import FastgetTestSupport
