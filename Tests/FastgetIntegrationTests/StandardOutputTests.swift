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

    @Test func jsonAndStandardOutputCannotShareIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["--json", "-o", "-", "http://h/f"], in: directory.path, timeout: 30)
        #expect(result.status == 64 && result.stderr.hasPrefix("fastget: error: --json and -o - both want standard output\n"))
        let named = try runProcess(try fastgetExecutable(), ["--json", "-o", "/dev/stdout", "http://h/f"], in: directory.path, timeout: 30)
        #expect(named.status == 64 && named.stderr.hasPrefix("fastget: error: --json and -o /dev/stdout both want standard output\n"))
    }
}
