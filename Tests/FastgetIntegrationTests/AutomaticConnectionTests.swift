import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// `-n auto` (`DownloadOptions.segments` nil, the default) against servers where more
/// connections help and where they do not.
@Suite struct AutomaticConnectionTests {
    let data = testBytes(count: 6 << 20, seed: 1501)

    func run(
        _ server: TestServer, _ directory: TemporaryDirectory, configure: (inout DownloadOptions) -> Void = { _ in }
    ) throws -> (DownloadReport, [(count: Int, reason: String)]) {
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        configure(&options)
        let changes = Locked<[(count: Int, reason: String)]>([])
        let download = try Download(url: server.url(), options: options)
        download.onEvent { event in
            if case .connectionsChanged(let count, let reason) = event { changes.withLock { $0.append((count, reason)) } }
        }
        let report = try download.run()
        return (report, changes.withLock { $0 })
    }

    @Test func theCountGrowsWhereEveryConnectionIsCapped() throws {
        // 1 MiB/s per connection: each added connection brings as much as the first.
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (report, changes) = try run(server, directory)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(changes.first?.count == 4, "\(changes)")
        #expect(changes.contains { $0.count == 16 }, "\(changes)")
        #expect(server.connectionCount >= 8 && report.connections >= 8, "\(server.connectionCount) connections")
        // One request per connection at the start: no HEAD, the first is the probe's GET.
        #expect(server.requests.first?.header("Range") == "bytes=0-")
        #expect(server.requests.allSatisfy { $0.method == "GET" })
    }

    @Test func slowAddedConnectionsCostTheDownloadLittle() throws {
        // The three connections added first crawl at 4 KiB/s, the others are fast: those three
        // bring almost nothing. The fast one takes their ranges by steals before the step can
        // be judged (their first bytes take a second, then comes a measurement; the rule itself
        // is tested in ConnectionGovernorTests and on the lab's traces): the count never grows
        // past them, the file is whole, and they sent little. (Hedging is off: a hedge would
        // also rescue a slow range.)
        let server = try TestServer(
            file: TestFile(data), TestServer.Configuration(rate: { (1...3).contains($0) ? 4096 : 4 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (report, changes) = try run(server, directory) { $0.hedgesTails = false }
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(changes.first?.count == 4, "\(changes)")
        #expect(changes.allSatisfy { $0.count <= 4 }, "\(changes)")
        #expect(report.retries == 0)
        // (The paced server sends 4 KiB a second: it notices a closed connection seconds later.)
        #expect(server.waitUntilIdle(timeout: 15))
        let slow = server.responses.filter { (1...3).contains($0.connection) }.reduce(Int64(0)) { $0 + $1.bodyBytes }
        #expect(slow < 48 * 1024, "the slow connections sent \(slow) bytes")
    }

    @Test func aSmallFileIsOneRequestOnOneConnection() throws {
        let small = Array(data.prefix(64 * 1024))
        let server = try TestServer(file: TestFile(small))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (report, changes) = try run(server, directory)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(small))
        #expect(changes.isEmpty)
        #expect(server.requests.map(\.method) == ["GET"] && server.connectionCount == 1)
        #expect(report.workers == 1 && report.connections == 1)
    }

    @Test func aSmallFileStoppedShortKeepsAJournalAndResumesFromIt() throws {
        // 200 KiB: fetched on the calling thread, with no journal until it stops. The first
        // answer sends 100 000 bytes and then crawls; the download is paused there.
        let small = Array(data.prefix(200 * 1024))
        let first = Atomic<Bool>(true)
        let head =
            "HTTP/1.1 206 Partial Content\r\nETag: \"fastget-test-1\"\r\nContent-Range: bytes 0-\(small.count - 1)/\(small.count)\r\nContent-Length: \(small.count)\r\n\r\n"
        let server = try TestServer { request in
            if first.exchange(false, ordering: .relaxed) {
                return .trickleAfter(sent: Array(head.utf8) + small.prefix(100_000), trickled: Array(small[100_000...]), interval: 1)
            }
            return .file(TestFile(small))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.checkpointPeriod = .seconds(30) // only the stop writes one
        let download = try Download(url: server.url(), options: options)
        let written = Atomic<Int64>(0)
        download.onEvent { event in
            if case .progress(let progress) = event { written.store(progress.completedBytes, ordering: .relaxed) }
        }
        download.start()
        let deadline = Date().addingTimeInterval(10)
        while written.load(ordering: .relaxed) < 100_000 && Date() < deadline { usleep(1000) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")), "no journal while it runs")
        download.pause()
        let paused = Date().addingTimeInterval(10)
        while download.state != .paused && Date() < paused { usleep(1000) }
        #expect(download.state == .paused)
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")), "the last checkpoint wrote one")

        server.clearRecords()
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(small))
        #expect(report.resumedBytes >= 100_000)
        #expect(server.requests.first?.method == "HEAD", "a resume probes first")
        #expect(
            server.requests.contains { $0.header("Range")?.hasPrefix("bytes=100000-") == true || $0.header("Range")?.hasPrefix("bytes=1") == true })
    }

    @Test func addedConnectionsAServerRefusesAreGivenUpNotTheDownload() throws {
        // A server that allows two connections per client: of the three connections the count
        // adds first, the second and third get 503. They give their ranges back; the download
        // completes on the others.
        let file = TestFile(data)
        let server = try TestServer(TestServer.Configuration(rate: { _ in 1_048_576 })) { request in
            (2...3).contains(request.connection) ? .status(503, body: "too many connections") : .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notices = Locked<[String]>([])
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        let download = try Download(url: server.url(), options: options)
        let changes = Locked<[(count: Int, reason: String)]>([])
        download.onEvent { event in
            if case .connectionsChanged(let count, let reason) = event { changes.withLock { $0.append((count, reason)) } }
        }
        let report = try download.run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.retries == 0)
        #expect(notices.withLock { $0 }.contains { $0.hasPrefix("an added connection failed (server answered 503") }, "\(notices.withLock { $0 })")
        let counts = changes.withLock { $0 }
        #expect(counts.contains { $0.reason.hasSuffix("from now on") }, "\(counts)")
    }
}

/// The count going back down where one connection fills the link.
@Suite struct AutomaticCountUndoTests {
    @Test func anUndoKeepsAConnectionThatCanCarryOnAndItRetriesAsTheFirstWould() throws {
        // 4 MiB/s for all connections together: the step to 4 brings nothing and is undone.
        // The first connection's response was cut by the steals that fed the added ones, so it
        // would need a new connection for the ranges handed back; an added one whose response
        // is its own range exactly carries on over its connection instead, as the primary
        // worker. Its second range is cut short once: as the primary
        // it retries (an added worker would hand the range back and leave no one to fetch it).
        let data = testBytes(count: 24 << 20, seed: 1502)
        let file = TestFile(data)
        let cutOnce = {
            var cut = file
            cut.drop = DropPlan(afterBytes: 256 * 1024)
            return cut
        }()
        let perConnection = Locked<[Int: Int]>([:])
        let firstReused = Locked<Int?>(nil)
        var configuration = TestServer.Configuration()
        configuration.linkRate = 4 * 1_048_576
        let server = try TestServer(configuration) { request in
            let earlier = perConnection.withLock { counts in
                defer { counts[request.connection, default: 0] += 1 }
                return counts[request.connection, default: 0]
            }
            guard earlier > 0 else { return .file(file) }
            firstReused.withLock { $0 = $0 ?? request.connection }
            return .file(cutOnce)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.hedgesTails = false
        let changes = Locked<[(count: Int, reason: String)]>([])
        let download = try Download(url: server.url(), options: options)
        download.onEvent { event in
            if case .connectionsChanged(let count, let reason) = event { changes.withLock { $0.append((count, reason)) } }
        }
        let report = try download.run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let counts = changes.withLock { $0 }
        #expect(counts.prefix(2).map(\.count) == [4, 1], "\(counts)")
        // The first range taken over a kept connection went on one the step opened (1–3), not
        // on a new connection of the first worker (4), and the retry of its cut took one more.
        #expect((1...3).contains(firstReused.withLock { $0 } ?? -1), "\(firstReused.withLock { $0 } as Any)")
        #expect(server.connectionCount >= 5, "\(server.connectionCount) connections")
        #expect(report.retries == 1)
    }
}
