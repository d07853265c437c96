import Fastget
import FastgetTestSupport
import Foundation
import Testing

private let nginxAvailable = Nginx.executable != nil || ProcessInfo.processInfo.environment["CI"] != nil

/// nginx as one mirror and the test server as another: ranges from both, each with its own
/// validator, and nginx dying mid-download costs nothing but its share.
@Suite(.enabled(if: nginxAvailable, "nginx is not installed"), .serialized)
struct NginxMirrorTests {
    let data = testBytes(count: 16 << 20, seed: 73)

    func options(_ directory: TemporaryDirectory, mirrors: [String]) -> DownloadOptions {
        var options = DownloadOptions()
        options.segments = 4
        options.mirrors = mirrors
        options.retries = 1
        options.output = directory.file("n.bin")
        return options
    }

    /// nginx's ranged answers: `GET URI 206 "bytes=…"` lines of its access log.
    func ranged(_ nginx: Nginx) -> [String] { nginx.accessLog().filter { $0.hasPrefix("GET /n.bin 206 \"bytes=") } }

    @Test func nginxAndTheTestServerServeOneFile() throws {
        // Paced (about a second), so that the mirror's probe, answered in milliseconds, comes
        // long before nginx alone could have sent the whole file.
        let nginx = try Nginx(files: ["n.bin": data], extraConfiguration: "limit_rate 2m;", listenOptions: "sndbuf=32k")
        defer { nginx.stop() }
        var file = TestFile(data)
        file.etag = "\"other\""
        let mirror = try TestServer(file: file, TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = try Download(url: nginx.url("/n.bin"), options: options(directory, mirrors: [mirror.url("/n.bin")])).run()
        #expect(SHA256.hex(ofFile: directory.file("n.bin")) == SHA256.hex(data))
        #expect(!ranged(nginx).isEmpty, "\(nginx.accessLog())")
        let mirrorRanges = mirror.requests.filter { $0.method == "GET" && $0.header("Range") != nil }
        #expect(!mirrorRanges.isEmpty)
        #expect(mirrorRanges.allSatisfy { $0.header("If-Range") == "\"other\"" })
        #expect(report.sources.count == 2 && report.sources.allSatisfy { $0.bytes > 0 && $0.dropped == nil }, "\(report.sources)")
    }

    @Test func nginxDyingMidDownloadIsDroppedAndTheOtherFinishes() throws {
        let nginx = try Nginx(files: ["n.bin": data], extraConfiguration: "limit_rate 2m;", listenOptions: "sndbuf=32k")
        defer { nginx.stop() }
        let primary = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // About 2 s at these rates; nginx stops a quarter of the way in.
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
            nginx.stop()
            stopped.signal()
        }
        let report = try Download(url: primary.url("/n.bin"), options: options(directory, mirrors: [nginx.url("/n.bin")])).run()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(SHA256.hex(ofFile: directory.file("n.bin")) == SHA256.hex(data))
        #expect(report.sources.last?.dropped != nil, "\(report.sources)")
        #expect(report.sources.last.map { $0.bytes > 0 } == true, "nginx served some bytes before it stopped")
    }
}
