import FastgetTestSupport
import Foundation
import Glibc

/// `Bench --soak KILLS`: kills fastget (SIGKILL, and every third time SIGINT) at random moments
/// while it downloads from a throttled embedded server, reruns the same command each time, and
/// checks every finished file byte for byte. Reports how many bytes each resume fetched again.
enum Soak {
    static func run(kills target: Int, fastget: Tool) throws {
        let size = 16 << 20
        let segments = 4
        let rate = 4.0 * 1_048_576
        let interval = 0.2
        let data = testBytes(count: size, seed: 77)
        let digest = SHA256.hex(data)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in rate }))
        defer { server.stop() }
        let directory = try TemporaryDirectory("fastget-soak")
        defer { directory.remove() }
        guard FileManager.default.changeCurrentDirectoryPath(directory.path) else { throw CocoaError(.fileNoSuchFile) }

        var kills = 0
        var earlyKills = 0 // within the first second of a run, where a journal used to be missing
        var files = 0
        var identical = 0
        var refetched: [Double] = []
        var random = SystemRandomNumberGenerator()
        while kills < target {
            files += 1
            server.clearRecords()
            let name = "soak\(files).bin"
            var resumes = 0
            var done = false
            while !done {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: fastget.path)
                process.arguments = ["-q", "-n", "\(segments)", "--checkpoint-interval", "\(interval)", "-o", name, server.url()]
                process.standardError = FileHandle.nullDevice
                let exited = DispatchSemaphore(value: 0)
                process.terminationHandler = { _ in exited.signal() }
                try process.run()
                let endedInTime: Bool
                let delay = Double.random(in: 0.05...1.5, using: &random)
                if kills < target {
                    endedInTime = exited.wait(timeout: .now() + delay) == .success
                } else {
                    exited.wait()
                    endedInTime = true
                }
                if !endedInTime {
                    kill(process.processIdentifier, kills % 3 == 2 ? SIGINT : SIGKILL)
                    kills += 1
                    if delay < 1 { earlyKills += 1 }
                    resumes += 1
                    exited.wait()
                }
                let status = process.terminationReason == .exit ? process.terminationStatus : -1
                // 73: an earlier kill landed after completion; the file is there, finished.
                done = status == 0 || (status == 73 && SHA256.hex(ofFile: directory.file(name)) == digest)
                if endedInTime && !done {
                    throw HarnessFailure("fastget failed with exit \(status) on \(name)")
                }
            }
            server.waitUntilIdle()
            if SHA256.hex(ofFile: directory.file(name)) == digest { identical += 1 }
            unlink(directory.file(name))
            let served = server.responses.filter { $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
            if resumes > 0 { refetched.append(Double(served - Int64(size)) / Double(resumes)) }
            say("file \(files): \(resumes) kills, \(served - Int64(size)) bytes fetched twice")
        }
        let sorted = refetched.sorted()
        say("soak: \(kills) kills (\(earlyKills) in a run's first second) over \(files) files, \(identical) of \(files) byte-identical")
        say(
            String(
                format:
                    "re-fetched bytes per resume (per-file averages): median %.0f KiB, max %.0f KiB; one %.1f s checkpoint interval carries %d × %.0f KiB, plus up to a 0.1 s coordinator tick and the bytes in flight",
                median(sorted) / 1024, (sorted.last ?? 0) / 1024, interval, segments, rate * interval / 1024))
        if identical != files { throw HarnessFailure("\(files - identical) files differ") }
    }
}
