import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A queue from async code, as an embedder writes it.
@Suite struct AsyncQueueTests {
    static let files = (0..<3).map { testBytes(count: 256 * 1024, seed: UInt64(2810 + $0)) }

    /// Serves /f0 … /f2 at whatever `rate` says now (nil: as fast as it can).
    func server(rate: Shared<Double?>) throws -> TestServer {
        let files = AsyncQueueTests.files
        return try TestServer(TestServer.Configuration(rate: { _ in rate.current })) { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
    }

    /// Leaves a journal of /f0 in `directory`, part of the file written; true once paused.
    func leaveAJournal(_ server: TestServer, _ options: DownloadOptions) async throws -> Bool {
        let first = try Download(url: server.url("/f0"), options: options)
        let events = first.events()
        // Paused from the coordinator thread: however late this task runs again, the file is
        // not complete by then.
        first.onEvent { [unowned first] event in
            if case .checkpoint(let bytes) = event, bytes > 0 { first.pause() }
        }
        first.start()
        return try await within(60) { () async -> Bool in
            for await event in events { if case .stateChanged(.paused) = event { return true } }
            return false
        }
    }

    @Test func theQueuesEventStreamHasTheDownloadsRestoredFromJournals() async throws {
        let rate = Shared<Double?>(16 * 1024)
        let server = try server(rate: rate)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        options.checkpointPeriod = .seconds(0.1)
        #expect(try await leaveAJournal(server, options))

        rate.withLock { $0 = nil }
        let queue = try DownloadQueue(directory: directory.path, options: options)
        let restored = try #require(queue.downloads.first)
        #expect(restored.state == .paused)
        let events = queue.events()
        queue.resumeAll()
        let (download, final) = try await within(60) { () async -> (Download?, DownloadEvent?) in
            for await (download, event) in events where event.isFinal { return (download, event) }
            return (nil, nil)
        }
        #expect(download === restored)
        if case .completed(let report)? = final { #expect(report.resumedBytes > 0) } else { Issue.record("final \(String(describing: final))") }
        #expect(SHA256.hex(ofFile: directory.file("f0")) == SHA256.hex(AsyncQueueTests.files[0]))
    }

    @Test func idleReturnsOnceEveryDownloadHasEnded() async throws {
        let server = try server(rate: Shared(256 * 1024))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        try await within(60) { try await queue.idle() } // nothing to wait for
        let downloads = try (0..<3).map { try queue.add(server.url("/f\($0)")) }
        try await within(60) { try await queue.idle() }
        #expect(downloads.allSatisfy { $0.state == .completed })
        #expect(queue.isIdle)
        for (index, download) in downloads.enumerated() {
            #expect(SHA256.hex(ofFile: download.destination) == SHA256.hex(AsyncQueueTests.files[index]))
        }
    }
}
