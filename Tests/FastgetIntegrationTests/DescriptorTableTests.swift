import Dispatch
@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// The command line grows its table of file descriptors before any thread starts: a growth
/// later, with threads running, makes every thread that opens a descriptor wait for an RCU grace
/// period (at `-n 32`, a dozen connections started 15 ms late).
@Suite struct DescriptorTableTests {
    /// The slots of the descriptor table of process `pid` (`FDSize` in its status).
    private func tableSize(_ pid: Int32) throws -> Int? {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return status.split(separator: "\n").first { $0.hasPrefix("FDSize:") }.flatMap {
            Int($0.dropFirst(7).trimmingCharacters(in: .whitespaces))
        }
    }

    /// Seen in `/proc/PID/status` while a one-connection download, which alone stays far below
    /// a thousand descriptors, waits for its answer. A child starts with a table as large as the
    /// highest descriptor its parent had open, so a process started the same way (`sleep`)
    /// shows what the test runner passes on: from a runner with a table that large already,
    /// nothing can be told.
    @Test func theTableIsGrownBeforeTheDownloadStarts() throws {
        let control = Process()
        control.executableURL = URL(fileURLWithPath: "/bin/sleep")
        control.arguments = ["20"]
        try control.run()
        let passedOn = try tableSize(control.processIdentifier)
        kill(control.processIdentifier, SIGKILL) // SIGKILL: a signal mask passed on may hold SIGTERM
        control.waitUntilExit()
        let expected = try #require(DescriptorTable.wanted)
        guard let passedOn, passedOn < expected else { return }

        let arrived = DispatchSemaphore(value: 0)
        let answer = DispatchSemaphore(value: 0)
        let server = try TestServer { _ in
            arrived.signal()
            if answer.wait(timeout: .now() + 20) == .success { answer.signal() } // and every later request
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
        let size = try tableSize(process.processIdentifier)
        #expect((size ?? 0) >= expected, "FDSize \(size.map(String.init) ?? "missing"), passed on \(passedOn)")
    }

    /// A program may exec fastget holding a POSIX lock on the file its standard input (or
    /// output) is, and closing any descriptor of that file would drop the lock: the growth
    /// duplicates and closes a descriptor of its own. Checked in this process, with a locked
    /// file put at descriptor 0 for the call and `/proc/locks` read right after it.
    @Test func aLockOnAStandardDescriptorsFileSurvives() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("locked")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let file = open(path, O_RDWR | O_CLOEXEC)
        try #require(file >= 0)
        defer { close(file) }
        var lock = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: 0, l_len: 0, l_pid: 0)
        try #require(fcntl(file, F_SETLK, &lock) == 0)
        var status = stat()
        try #require(fstat(file, &status) == 0)
        let saved = dup(0)
        try #require(saved >= 0)
        try #require(dup2(file, 0) == 0)
        DescriptorTable.reserve()
        // Read before descriptor 0 is put back: that close drops the lock too.
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        dup2(saved, 0)
        close(saved)
        let held = locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.contains("POSIX") && fields.contains(Substring("\(getpid())"))
                && fields.contains { $0.hasSuffix(":\(status.st_ino)") }
        }
        #expect(held, "the lock on the file at descriptor 0 is gone:\n\(locks)")
    }
}
