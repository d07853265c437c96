import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Where and when handlers run: never inside the caller's own control call, and for a queue,
/// on every download it holds, those restored from journals too.
@Suite struct EventDeliveryTests {
    let data = testBytes(count: 256 * 1024, seed: 2802)

    enum Call: String, CaseIterable, Sendable {
        case cancel, cancelAndDelete, pause, resume

        /// The event after which nothing more comes from this call.
        func isLast(_ event: DownloadEvent) -> Bool {
            switch (self, event) {
            case (.cancel, .cancelled), (.cancelAndDelete, .cancelled), (.pause, .stateChanged(.paused)), (.resume, .completed): true
            default: false
            }
        }
    }

    struct Delivery: Sendable {
        let event: DownloadEvent
        /// The handler could take the lock the caller held during its call.
        let tookTheLock: Bool
        /// The caller's call had not returned yet.
        let duringTheCall: Bool
    }

    /// A handler that takes a lock the caller holds across `cancel()` (or `pause`, `resume`)
    /// of a download that is not running: run inside the call, it would deadlock.
    @Test(arguments: Call.allCases)
    func aControlCallNeverRunsAHandlerInsideIt(_ call: Call) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        if call == .resume { download.pause() } // queued → paused; its handler comes later

        let lock = NSLock()
        let inside = Shared(false)
        let deliveries = Shared<[Delivery]>([])
        download.onEvent { event in
            let took = lock.lock(before: Date().addingTimeInterval(5))
            if took { lock.unlock() }
            let delivery = Delivery(event: event, tookTheLock: took, duringTheCall: inside.current)
            deliveries.withLock { $0.append(delivery) }
        }
        lock.lock()
        inside.withLock { $0 = true }
        switch call {
        case .cancel: download.cancel()
        case .cancelAndDelete: download.cancelAndDelete()
        case .pause: download.pause()
        case .resume: download.resume()
        }
        inside.withLock { $0 = false }
        lock.unlock()

        #expect(eventually(timeout: 30) { deliveries.current.contains { call.isLast($0.event) } })
        let seen = deliveries.current
        #expect(!seen.isEmpty && seen.allSatisfy { $0.tookTheLock && !$0.duringTheCall }, "\(seen)")
        let states = seen.compactMap { if case .stateChanged(let state) = $0.event { state } else { nil } }
        switch call {
        case .cancel, .cancelAndDelete: #expect(states == [.cancelled])
        case .pause: #expect(states == [.paused])
        case .resume: #expect(states == [.queued, .probing, .downloading, .completed])
        }
    }

    /// A queue rebuilds paused downloads from journals in `init`, before any handler can be
    /// registered; a handler registered then still hears them once resumed.
    @Test func theQueuesHandlerHearsDownloadsRestoredFromJournals() throws {
        let fast = Shared(false)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in fast.current ? nil : 16 * 1024 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        options.checkpointPeriod = .seconds(0.1)
        let first = try Download(url: server.url("/f.bin"), options: options)
        let log = EventLog(first)
        first.start()
        #expect(eventually { log.completedBytes > 0 })
        first.pause()
        #expect(eventually { log.states.last == .paused })
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))

        fast.withLock { $0 = true }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: options)
        let restored = try #require(queue.downloads.first)
        let heard = Shared<[DownloadEvent]>([])
        queue.onEvent { download, event in if download === restored { heard.withLock { $0.append(event) } } }
        queue.resumeAll()
        #expect(eventually(timeout: 30) { heard.current.contains { $0.isFinal } })
        if case .completed = heard.current.last {} else { Issue.record("heard \(heard.current)") }
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }
}
