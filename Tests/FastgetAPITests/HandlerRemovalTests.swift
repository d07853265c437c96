import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `onEvent` returns a token; `removeHandler` stops the handler and lets go of it.
@Suite struct HandlerRemovalTests {
    let data = testBytes(count: 256 * 1024, seed: 2820)

    @Test func aRemovedHandlerHearsNothingMoreAndIsReleased() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        final class Captured: Sendable {}
        var captured: Captured? = Captured()
        weak let released = captured
        let removedCalls = Shared(0)
        let token = download.onEvent { [captured] _ in
            _ = captured
            removedCalls.withLock { $0 += 1 }
        }
        captured = nil
        #expect(released != nil) // the handler holds it
        let keptCalls = Shared(0)
        download.onEvent { _ in keptCalls.withLock { $0 += 1 } }
        download.removeHandler(token)
        #expect(released == nil)
        download.removeHandler(token) // again: nothing

        _ = try await within(30) { try await download.result() }
        #expect(removedCalls.current == 0)
        #expect(keptCalls.current > 0)
    }

    @Test func aRemovedQueueHandlerHearsNothingMore() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, options: testOptions(directory, segments: 1))
        let removedCalls = Shared(0)
        let keptCalls = Shared<[DownloadEvent]>([])
        let token = queue.onEvent { _, _ in removedCalls.withLock { $0 += 1 } }
        queue.onEvent { _, event in keptCalls.withLock { $0.append(event) } }
        queue.removeHandler(token)
        let download = try queue.add(server.url("/f.bin"))
        // The queue's handlers hear each event before an observer added after `add` does.
        _ = try await within(30) { try await download.result() }
        #expect(removedCalls.current == 0)
        #expect(keptCalls.current.contains { $0.isFinal })
    }
}
