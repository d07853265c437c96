import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Work stealing by remaining time: an idle connection takes the second half of the range that
/// would finish last, and the slow connection stops exactly where its range now ends.
@Suite struct StealingTests {
    let data = testBytes(count: 4 << 20, seed: 31)

    @Test func idleConnectionsTakeOverTheSlowConnectionsTail() throws {
        // Four segments; the connection accepted fourth crawls at 128 KiB/s, the others at 4 MiB/s.
        let server = try TestServer(
            file: TestFile(data),
            TestServer.Configuration(rate: { index in
                index == 3 ? 128 * 1024 : 4 * 1_048_576
            }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.steals >= 1)
        // Each stolen range starts where a planned one ends or inside one, never before byte 0,
        // and every range request after the probe's GET (which defines the version) carried If-Range.
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.count == 4 + report.steals + report.hedges + report.hedgesLost)
        #expect(gets.first?.header("Range") == "bytes=0-")
        #expect(gets.dropFirst().allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
        // The bytes the server sent beyond the file are only what a victim had in flight when
        // it stopped at its new end.
        #expect(server.waitUntilIdle())
        let served = server.responses.filter { $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
        #expect(served <= Int64(data.count) + Int64(report.steals) * (1 << 20), "served \(served)")
    }

    @Test func stealingAndHedgingOffKeepOneRequestPerSegment() throws {
        let server = try TestServer(
            file: TestFile(data),
            TestServer.Configuration(rate: { index in
                index == 3 ? 1_048_576 : 8 * 1_048_576
            }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        options.stealing = false
        options.hedging = false
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.steals == 0)
        #expect(server.requests.filter { $0.method == "GET" }.count == 4)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }
}
