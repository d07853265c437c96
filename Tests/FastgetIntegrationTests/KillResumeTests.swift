import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// The promise behind the journal: kill fastget at any moment, run the same command again, and
/// the result is byte-identical, having re-fetched only what the last checkpoint did not cover.
@Suite struct KillResumeTests {
    static let size = 6 << 20
    static let segments = 3
    static let rate = 2.0 * 1_048_576 // per connection
    static let checkpointInterval = 0.1

    @Test(arguments: [SIGKILL, SIGINT])
    func survivesTenKillsAtRandomMoments(signal: Int32) throws {
        let data = testBytes(count: KillResumeTests.size, seed: UInt64(signal))
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in KillResumeTests.rate }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = try fastgetExecutable()
        var random = SystemRandomNumberGenerator()
        var kills = 0
        var round = 0
        while kills < 10 {
            round += 1
            server.clearRecords()
            let name = "round\(round).bin"
            var resumes = 0
            var finished = false
            // Five kills per round, then one run left alone to finish.
            for _ in 0..<6 where !finished {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = [
                    "-q", "-n", "\(KillResumeTests.segments)", "--checkpoint-interval", "\(KillResumeTests.checkpointInterval)",
                    "-o", name, server.url(),
                ]
                process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
                let errors = Pipe()
                process.standardError = errors
                let exited = DispatchSemaphore(value: 0)
                process.terminationHandler = { _ in exited.signal() }
                try process.run()
                // The kill point: somewhere in the first 0.15-0.6 s of this run.
                let killing = resumes < 5
                let delay = killing ? Double.random(in: 0.15...0.6, using: &random) : 60
                guard exited.wait(timeout: .now() + delay) == .timedOut else {
                    // 73: a kill landed after the file was complete and its journal removed, so
                    // the rerun finds the finished file under its final name and leaves it alone.
                    let status = process.terminationStatus
                    let completeEarlier = status == 73 && SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(data)
                    #expect(status == 0 || completeEarlier, "\(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
                    finished = status == 0 || completeEarlier
                    continue
                }
                guard killing else {
                    Issue.record("the last run did not finish within 60 s")
                    kill(process.processIdentifier, SIGKILL)
                    exited.wait()
                    break
                }
                kill(process.processIdentifier, signal)
                kills += 1
                resumes += 1
                #expect(exited.wait(timeout: .now() + 20) == .success, "fastget did not stop after signal \(signal)")
                // The signal may land just after the download completed.
                finished = process.terminationReason == .exit && process.terminationStatus == 0
                if signal == SIGINT && process.terminationStatus != 0 {
                    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    #expect(process.terminationStatus == 130, "\(stderr)")
                    if FileManager.default.fileExists(atPath: directory.file(name + ".fastget")) {
                        #expect(stderr.contains(" kept; run the same command again to resume (journal: \(name).fastget)"), "\(stderr)")
                        #expect(!stderr.contains("error"), "a stop the user asked for is not an error: \(stderr)")
                    }
                }
            }
            #expect(finished)
            #expect(SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(data), "round \(round) after \(resumes) resumes")
            #expect(!FileManager.default.fileExists(atPath: directory.file(name + ".fastget")))
            // Re-fetched bytes are bounded by what a checkpoint interval (plus a tick) carries.
            #expect(server.waitUntilIdle())
            let served = server.responses.filter { $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
            let perResume = Double(KillResumeTests.segments) * KillResumeTests.rate * (KillResumeTests.checkpointInterval + 0.25)
            #expect(
                Double(served) <= Double(KillResumeTests.size) + Double(resumes) * perResume,
                "round \(round): \(served) bytes served for \(KillResumeTests.size) with \(resumes) resumes")
        }
    }

    @Test func aSecondInterruptExitsAtOnceAndTheRunStillResumes() throws {
        let data = testBytes(count: KillResumeTests.size, seed: 5)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in KillResumeTests.rate }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let executable = try fastgetExecutable()
        let arguments = ["-q", "-n", "\(KillResumeTests.segments)", "--checkpoint-interval", "0.1", "-o", "twice.bin", server.url()]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Let it get going (a checkpoint or two), then interrupt twice in a row.
        _ = exited.wait(timeout: .now() + 0.4)
        kill(process.processIdentifier, SIGINT)
        kill(process.processIdentifier, SIGINT)
        #expect(exited.wait(timeout: .now() + 20) == .success)
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        let rerun = try runProcess(executable, arguments, in: directory.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("twice.bin")) == SHA256.hex(data))
    }
}
