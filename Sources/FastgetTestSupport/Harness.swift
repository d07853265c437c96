import Foundation
import Glibc

/// The result of running a program to completion.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `executable` with `arguments`; kills it after `timeout` seconds.
public func runProcess(
    _ executable: String, _ arguments: [String], in directory: String? = nil,
    environment: [String: String]? = nil, timeout: Double = 120
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    if let environment { process.environment = environment }
    let output = try TemporaryDirectory("fastget-run")
    defer { output.remove() }
    _ = FileManager.default.createFile(atPath: output.file("out"), contents: nil)
    _ = FileManager.default.createFile(atPath: output.file("err"), contents: nil)
    let stdout = try Foundation.FileHandle(forWritingTo: URL(fileURLWithPath: output.file("out")))
    let stderr = try Foundation.FileHandle(forWritingTo: URL(fileURLWithPath: output.file("err")))
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = Foundation.FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    if exited.wait(timeout: .now() + timeout) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        exited.wait()
        throw HarnessError("\(executable) \(arguments) did not finish within \(timeout) s")
    }
    try stdout.close()
    try stderr.close()
    let out = (try? String(contentsOfFile: output.file("out"), encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: output.file("err"), encoding: .utf8)) ?? ""
    return ProcessResult(status: process.terminationStatus, stdout: out, stderr: err)
}

/// Finds a program on `PATH` (and the sbin directories, where Debian puts nginx).
public func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to 0, read it, release it).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw HarnessError("cannot bind a loopback port") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits (bounded) until something accepts TCP connections on 127.0.0.1:`port`.
public func waitForListener(port: Int, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(fd)
        if connected == 0 { return true }
        usleep(20_000)
    }
    return false
}

/// The `fastget` executable built next to the test bundle, or the one FASTGET_EXECUTABLE names
/// (to run the command-line tests against another build, e.g. the static binary).
public func fastgetExecutable() throws -> String {
    if let chosen = ProcessInfo.processInfo.environment["FASTGET_EXECUTABLE"], !chosen.isEmpty {
        guard FileManager.default.isExecutableFile(atPath: chosen) else {
            throw HarnessError("FASTGET_EXECUTABLE names no executable: \(chosen)")
        }
        return chosen
    }
    return try builtProduct("fastget")
}

/// A product built with the tests (`fastget`, `Bench`, `bench-launcher`, the `Modules` folder):
/// next to the test bundle, else in `.build/debug`.
public func builtProduct(_ name: String) throws -> String {
    let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    var candidates = [bundleDirectory + "/" + name]
    var directory = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { directory.deleteLastPathComponent() }
    candidates.append(directory.path + "/.build/debug/" + name)
    guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        throw HarnessError("\(name) is not built (looked at \(candidates))")
    }
    return found
}

/// A program started in the background, to be signalled at a moment the test chooses; its
/// exit is awaited with a bound. Standard error is kept (read it once it exited).
public final class Spawned: @unchecked Sendable {
    public let process = Process()
    private let errors = Pipe()
    private let exited = DispatchSemaphore(value: 0)

    /// - Parameter output: its standard output (by default, the test's).
    public init(_ executable: String, _ arguments: [String], in directory: String, output: Pipe? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = Foundation.FileHandle.nullDevice
        if let output { process.standardOutput = output }
        process.standardError = errors
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    /// Waits up to `seconds` for it to exit; true when it did (a later call stays true).
    public func waitForExit(_ seconds: Double) -> Bool {
        guard exited.wait(timeout: .now() + seconds) == .success else { return false }
        exited.signal()
        return true
    }

    /// Waits, up to `seconds` and a look every 20 ms, until `ready()` holds or it exits.
    public func wait(upTo seconds: Double, until ready: () -> Bool) {
        // Not `for … where !ready()`: that goes on calling `ready` once it holds.
        for _ in 0..<max(1, Int(seconds / 0.02)) {
            if ready() || waitForExit(0.02) { return }
        }
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Its exit status (once it exited).
    public var status: Int32 { process.terminationStatus }

    /// What it wrote to standard error (read to the end: call once it exited).
    public var stderr: String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
}
