import FastgetTestSupport
import Foundation
import Testing

/// One run of the `fastget` executable with `FASTGET_FAULTS` set (see Posix/SyscallFaults.swift),
/// and the fault counts it printed at exit.
struct FaultRun {
    let status: Int32
    /// Standard error without the `fastget-faults:` line.
    let stderr: String
    /// The `fastget-faults:` line's `key=value` pairs; nil when there was none: a binary built
    /// without the injector (release, static), or a spec it never read.
    let counts: [String: Int]?

    /// Runs `arguments` in `directory`, under `faults` (unset when nil).
    init(_ faults: String?, _ arguments: [String], in directory: String, timeout: Double = 60) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["FASTGET_FAULTS"] = faults
        let result = try runProcess(try fastgetExecutable(), arguments, in: directory, environment: environment, timeout: timeout)
        status = result.status
        var counts: [String: Int]?
        var others: [Substring] = []
        for line in result.stderr.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("fastget-faults: ") else {
                others.append(line)
                continue
            }
            var pairs: [String: Int] = [:]
            for pair in line.dropFirst("fastget-faults: ".count).split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Int(parts[1]) { pairs[String(parts[0])] = value }
            }
            counts = pairs
        }
        self.counts = counts
        stderr = others.joined(separator: "\n")
    }

    /// The count for `key` (`eintr`, `fail-fdatasync`, `calls-rename` …), 0 when absent.
    func count(_ key: String) -> Int { counts?[key] ?? 0 }

    /// Stops the calling test as skipped when the executable has no fault injector: a test that
    /// ran without faults would pass without showing anything.
    func requireInjector() throws {
        guard counts == nil else { return }
        let executable = (try? fastgetExecutable()) ?? "fastget"
        try Test.cancel(
            "\(executable) printed no fault counts: it has no fault injector (a release or static build); fault tests need the debug build")
    }
}
