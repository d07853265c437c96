import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Handlers added, removed and blocking on several threads at once: every handler hears what
/// it was registered for, a removed one hears nothing more, and one download's handler never
/// holds up another download's events.
@Suite struct HandlerRaceTests {
    /// Handlers registered from many threads at once on one download all hear its end: a
    /// registration that finished later than a newer one must not hide the newer one from
    /// every later event (then `result()` would never return).
    @Test func handlersAddedConcurrentlyAllHearTheEnd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let threads = 4, perThread = 2
        for round in 0..<5000 { // before the fix, one round in a few thousand lost a handler
            // Never started: `cancel()` ends it at once, no server needed.
            let download = try Download(url: "http://127.0.0.1:9/r\(round).bin", options: testOptions(directory))
            let heard = Shared(0)
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<perThread {
                    download.onEvent { event in if case .cancelled = event { heard.withLock { $0 += 1 } } }
                }
            }
            download.cancel()
            guard eventually(timeout: 10, { heard.current == threads * perThread }) else {
                Issue.record("round \(round): \(heard.current) of \(threads * perThread) handlers heard the cancel")
                return
            }
        }
    }

    /// The first handler of an event removes the second: the second is not called, not even
    /// for that event (the removal returned before its call would have started).
    @Test func aHandlerRemovedByAnEarlierHandlerOfTheSameEventIsNotCalled() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: "http://127.0.0.1:9/x.bin", options: testOptions(directory))
        let second = Shared<EventHandlerToken?>(nil)
        let secondCalls = Shared(0)
        download.onEvent { [unowned download] _ in
            if let token = second.withLock({ $0.take() }) { download.removeHandler(token) }
        }
        second.withLock { $0 = download.onEvent { _ in secondCalls.withLock { $0 += 1 } } }
        let ended = Shared(false)
        download.onEvent { event in if case .cancelled = event { ended.withLock { $0 = true } } }
        download.cancel() // .stateChanged(.cancelled), then .cancelled
        #expect(eventually(timeout: 30) { ended.current })
        #expect(secondCalls.current == 0)
    }

    /// The same with a queue's handlers.
    @Test func aQueueHandlerRemovedByAnEarlierHandlerOfTheSameEventIsNotCalled() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, options: testOptions(directory))
        queue.pauseAll() // what is added waits paused: no run, no server
        let second = Shared<EventHandlerToken?>(nil)
        let secondCalls = Shared(0)
        queue.onEvent { [unowned queue] _, _ in
            if let token = second.withLock({ $0.take() }) { queue.removeHandler(token) }
        }
        second.withLock { $0 = queue.onEvent { _, _ in secondCalls.withLock { $0 += 1 } } }
        let ended = Shared(false)
        queue.onEvent { _, event in if case .cancelled = event { ended.withLock { $0 = true } } }
        let download = try queue.add("http://127.0.0.1:9/x.bin")
        #expect(download.state == .paused)
        queue.cancelAll()
        #expect(eventually(timeout: 30) { ended.current })
        #expect(secondCalls.current == 0)
    }

    /// Two downloads whose handlers block once cancelled hold up only their own events: a third
    /// download, paused and then awaited (resumed), still has every event and its result
    /// delivered.
    @Test func aBlockingHandlerHoldsUpNoOtherDownload() async throws {
        let server = try TestServer(file: TestFile(testBytes(count: 256 * 1024, seed: 2850)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        let blockers = try ["a", "b"].map { try Download(url: "http://127.0.0.1:9/\($0).bin", options: testOptions(directory)) }
        for blocker in blockers {
            blocker.onEvent { event in
                guard case .cancelled = event else { return }
                blocked.signal()
                _ = gate.wait(timeout: .now() + 40) // released below; bounded all the same
            }
        }
        defer { for _ in blockers { gate.signal() } }
        for blocker in blockers { blocker.cancel() }
        for _ in blockers { #expect(blocked.wait(timeout: .now() + 30) == .success) }

        let download = try Download(url: server.url("/c.bin"), options: testOptions(directory))
        let log = EventLog(download)
        download.pause() // queued → paused, told on a delivery thread
        let report = try await within(30) { try await download.result() } // resumes it
        #expect(report.bytes == 256 * 1024)
        #expect(eventually(timeout: 30) { log.finalEvents.count == 1 })
        #expect(log.states == [.paused, .queued, .probing, .downloading, .completed])
    }
}
