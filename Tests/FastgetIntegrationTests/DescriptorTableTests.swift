import Dispatch
import FastgetTestSupport
import Foundation
import Testing

/// The command line grows its table of file descriptors before any thread starts: a growth
/// later, with threads running, makes every thread that opens a descriptor wait for an RCU grace
/// period (at `-n 32`, a dozen connections started 15 ms late). Seen in `/proc/PID/status`
/// (`FDSize`) while a one-connection download, which alone would stay at 64 slots, waits for
/// its answer.
@Suite struct DescriptorTableTests {
    @Test func theTableIsGrownBeforeTheDownloadStarts() throws {
        let arrived = DispatchSemaphore(value: 0)
        let answer = DispatchSemaphore(value: 0)
        let server = try TestServer { _ in
            arrived.signal()
            _ = answer.wait(timeout: .now() + 20)
            return .status(404, body: "gone")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try fastgetExecutable())
        process.arguments = ["-q", "-n", "1", "-o", "f.bin", server.url()]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        defer {
            answer.signal()
            if exited.wait(timeout: .now() + 20) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        }
        try #require(arrived.wait(timeout: .now() + 20) == .success)
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let size = status.split(separator: "\n").first { $0.hasPrefix("FDSize:") }.flatMap {
            Int($0.dropFirst(7).trimmingCharacters(in: .whitespaces))
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let expected = Int(min(1024, limit.rlim_cur))
        #expect(expected <= 64 || (size ?? 0) >= expected, "FDSize \(size.map(String.init) ?? "missing"), open-file limit \(limit.rlim_cur)")
    }
}
