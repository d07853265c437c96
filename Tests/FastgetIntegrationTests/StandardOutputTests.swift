import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-o -`: the file on standard output, in order, while segments download in parallel.
@Suite struct StandardOutputTests {
    static let data = testBytes(count: 64 << 20, seed: 15)

    @Test func pipedIntoSha256sumAtEightSegments() throws {
        // One connection is slow, so the others run ahead and wait for the window.
        let server = try TestServer(file: TestFile(StandardOutputTests.data), TestServer.Configuration(rate: { $0 == 2 ? 16 * 1_048_576 : nil }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(
            shell, ["-c", "'\(try fastgetExecutable())' -q -n 8 -o - '\(server.url())' | sha256sum"],
            in: directory.path, timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(SHA256.hex(StandardOutputTests.data) + " "), "\(result.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing is written to disk")
        #expect(server.requests.filter { $0.method == "GET" }.count >= 8)
    }

    @Test func anAutomaticCountStaysWithinTheHostCap() throws {
        // `-o -` uses a fixed count; with auto, 8 — or the per-host cap when it is lower.
        let data = Array(StandardOutputTests.data.prefix(8 << 20))
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(
            shell, ["-c", "'\(try fastgetExecutable())' -q --max-connections 2 -o - '\(server.url())' | sha256sum"],
            in: directory.path, timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(SHA256.hex(data) + " "), "\(result.stdout)")
        // The probe's connection and two for the ranges.
        #expect(server.connectionCount <= 3, "\(server.connectionCount) connections")
    }

    @Test func memoryStaysBoundedWhateverTheSize() throws {
        // The same download at 16 and at 64 MiB: the peak must not grow with the file (a
        // sanitizer build is larger, but by the same amount for both).
        let data = StandardOutputTests.data
        let small = TestFile(Array(data.prefix(16 << 20))), big = TestFile(data)
        let server = try TestServer(TestServer.Configuration(rate: { $0 == 2 || $0 == 12 ? 16 * 1_048_576 : nil })) { request in
            .file(request.target == "/small" ? small : big)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let launcher = try builtProduct("bench-launcher")
        var peaks: [Int] = []
        for (name, bytes) in [("small", Array(data.prefix(16 << 20))), ("big", data)] {
            let result = try runProcess(
                launcher,
                [
                    directory.file(name), try fastgetExecutable(), "-q", "-n", "8",
                    "--checksum", "sha-256=" + SHA256.hex(bytes), "-o", "-", server.url("/" + name),
                ],
                timeout: 120)
            let fields = result.stdout.split(separator: " ")
            #expect(fields.first == "0", "\(result.stdout) \(result.stderr)")
            #expect(SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(bytes))
            peaks.append(fields.count > 2 ? Int(fields[2]) ?? .max : .max)
        }
        #expect(peaks[1] - peaks[0] < 12 * 1024, "peak RSS \(peaks[0]) KiB for 16 MiB, \(peaks[1]) KiB for 64 MiB")
    }

    /// A reader that takes nothing fills the pipe, and a write to it would wait for ever: a
    /// stop (Ctrl-C, --max-time) still ends the run at once, and the closing line counts what
    /// went out, a prefix of the file.
    @Test(arguments: [false, true])
    func aStopEndsTheRunWhenTheReaderTakesNothing(byMaximumTime: Bool) throws {
        let data = Array(StandardOutputTests.data.prefix(8 << 20))
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pipe = Pipe()
        let limit = byMaximumTime ? ["--max-time", "1"] : []
        let run = try Spawned(try fastgetExecutable(), ["-n", "4"] + limit + ["-o", "-", server.url()], in: directory.path, output: pipe)
        if !byMaximumTime {
            // Every range asked for: the window is full and the pipe too.
            run.wait(upTo: 30) { server.requests.filter { $0.method == "GET" }.count >= 4 }
            run.signal(SIGINT)
        }
        let stopped = run.waitForExit(byMaximumTime ? 6 : 5)
        if !stopped {
            run.signal(SIGKILL)
            _ = run.waitForExit(30)
        }
        #expect(stopped, "still running after the stop")
        let out = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        let stderr = run.stderr
        #expect(run.status == (byMaximumTime ? 75 : 130), "\(stderr)")
        #expect(!out.isEmpty && out.count < data.count && out[...] == data.prefix(out.count), "\(out.count) bytes")
        #expect(stderr.hasSuffix("fastget: stopped after \(ByteCount.formatted(Double(out.count))); a stream cannot resume\n"), "\(stderr)")
    }

    @Test func jsonAndStandardOutputCannotShareIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--json", "-o", "-", "http://h/f"], in: directory.path, timeout: 30)
        #expect(result.status == 64 && result.stderr.hasPrefix("fastget: error: --json and -o - both want standard output\n"))
        let named = try runProcess(try fastgetExecutable(), ["--json", "-o", "/dev/stdout", "http://h/f"], in: directory.path, timeout: 30)
        #expect(named.status == 64 && named.stderr.hasPrefix("fastget: error: --json and -o /dev/stdout both want standard output\n"))
    }
}
