import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// Tail hedging: with stealing off, an idle connection fetches the tail of a much slower range
/// in parallel; whichever delivers first keeps it and the other stops.
@Suite struct HedgingTests {
    let data = testBytes(count: 1 << 20, seed: 41)

    func options(_ directory: TemporaryDirectory) -> DownloadOptions {
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        options.stealsWork = false
        return options
    }

    /// The GETs for the two planned ranges, and any other (hedges), in arrival order. The first
    /// range is the probe's own GET, which asks from byte 0 to the end.
    func gets(_ server: TestServer) -> (planned: [RecordedRequest], hedges: [RecordedRequest]) {
        let gets = server.requests.filter { $0.method == "GET" }
        let planned = ["bytes=0-", "bytes=524288-1048575"]
        return (gets.filter { planned.contains($0.header("Range") ?? "") }, gets.filter { !planned.contains($0.header("Range") ?? "") })
    }

    @Test func hedgeDeliversFirstAndTheSlowRangeStopsWhereItBegins() throws {
        // The second range's connection (index 1; 0 is the probe's, which carries the first) crawls
        // at 128 KiB/s. The probe's runs at 4 MiB/s: unpaced, its range could arrive whole before
        // the second worker starts, and the first worker would claim both ranges itself.
        let server = try TestServer(
            file: TestFile(data), TestServer.Configuration(rate: { $0 == 1 ? 128 * 1024 : ($0 == 0 ? 4 * 1_048_576 : nil) }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = try Download(url: server.url(), options: options(directory)).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.steals == 0)
        #expect(
            report.hedges == 1 && report.hedgesLost == 0,
            "hedges \(report.hedges) lost \(report.hedgesLost) \(server.requests.map { "\($0.connection) \($0.header("Range") ?? "")" })")

        // One hedge request: the tail of the slow connection's range, with If-Range.
        let (planned, hedges) = gets(server)
        #expect(planned.count == 2 && hedges.count == 1)
        guard let hedge = hedges.first, let slow = planned.first(where: { $0.connection == 1 }) else { return }
        #expect(hedge.connection != 1)
        #expect(hedge.header("If-Range") == "\"fastget-test-1\"")
        let slowRange = try #require(slow.header("Range")).dropFirst(6).split(separator: "-").compactMap { Int($0) }
        let hedgeRange = try #require(hedge.header("Range")).dropFirst(6).split(separator: "-").compactMap { Int($0) }
        #expect(hedgeRange[1] == slowRange[1], "the hedge asks for the slow range's tail")
        #expect(hedgeRange[0] > slowRange[0] && hedgeRange[0] < slowRange[1])

        // The slow connection stopped about where the hedge began: it sent its range's head, not
        // the part the hedge took (at most what was in flight when it stopped).
        #expect(server.waitUntilIdle())
        let slowSent = server.responses.filter { $0.connection == 1 && $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
        #expect(slowSent < Int64(hedgeRange[0] - slowRange[0]) + 256 * 1024, "slow connection sent \(slowSent)")
    }

    @Test func theSlowRangeWinsWhenTheHedgeIsLate() throws {
        // The hedge's answer is held back until the slow connection has sent its whole range:
        // the hedge then loses, writes nothing and stops.
        let slowDone = Atomic<Bool>(false)
        let file = TestFile(data)
        // Paced connections (the other worker's at 4 MiB/s) keep what a hung-up response sends small.
        let server = try TestServer(TestServer.Configuration(rate: { $0 == 1 ? 512 * 1024 : 4 * 1_048_576 })) { request in
            let range = request.header("Range") ?? ""
            if request.method == "GET", range != "bytes=0-", range != "bytes=524288-1048575" {
                let deadline = Date().addingTimeInterval(10)
                while !slowDone.load(ordering: .acquiring) && Date() < deadline { usleep(1000) }
            }
            return .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url(), options: options(directory))
        // The slow connection's response finishing is what releases the hedge.
        let watcher = Thread {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if server.responses.contains(where: { $0.connection == 1 && $0.method == "GET" }) { break }
                usleep(1000)
            }
            slowDone.store(true, ordering: .releasing)
        }
        watcher.start()
        let report = try download.run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.hedges == 0 && report.hedgesLost == 1, "hedges \(report.hedges) lost \(report.hedgesLost)")
        let (planned, hedges) = gets(server)
        #expect(planned.count == 2 && hedges.count == 1)
        // The loser hung up: the hedge's response was cut short.
        #expect(server.waitUntilIdle())
        let hedgeSent =
            server.responses.filter { $0.connection == hedges.first?.connection && $0.method == "GET" }
            .map(\.bodyBytes).last ?? 0
        #expect(hedgeSent < 256 * 1024, "hedge response sent \(hedgeSent)")
    }

    @Test func hedgingOffLeavesTheSlowRangeAlone() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { $0 == 1 ? 1024 * 1024 : nil }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = options(directory)
        options.hedgesTails = false
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.hedges == 0 && report.hedgesLost == 0)
        #expect(gets(server).hedges.isEmpty && gets(server).planned.count == 2)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }
}
