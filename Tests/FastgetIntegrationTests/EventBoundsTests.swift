@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Observers and event buffers that nobody drains stay bounded.
@Suite struct EventBoundsTests {
    @Test func anUnreadEventStreamHoldsABoundedNumberOfEvents() async throws {
        let data = testBytes(count: 1 << 20, seed: 1310)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.segments = 2
        options.progressPeriod = .seconds(0.001) // about a thousand progress events in a second
        let download = try Download(url: server.url(), options: options)
        let events = download.events()
        _ = try blocking { try download.run() }
        var count = 0
        var last: DownloadEvent?
        for await event in events {
            count += 1
            last = event
        }
        #expect(count <= Download.eventBufferLimit)
        if case .completed? = last {} else { Issue.record("the final event was dropped: \(String(describing: last))") }
    }

    @Test func waitingForTheResultAgainLeavesNoObserverBehind() async throws {
        let server = try TestServer(file: TestFile(testBytes(count: 64 * 1024, seed: 1311)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        let download = try Download(url: server.url(), options: options)
        let before = download.hub.count
        for _ in 0..<5 { _ = try await download.result() }
        #expect(download.hub.count == before)
    }
}
