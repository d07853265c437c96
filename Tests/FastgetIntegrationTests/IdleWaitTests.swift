@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `DownloadQueue.idle()` and task cancellation. Here, not with the API tests, because the test
/// must know that the waiting task is suspended in `idle()` (its wait registered), which the
/// public API does not show: a task cancelled before that is caught by `idle()`'s first check,
/// and would prove nothing about cancelling a suspended wait.
@Suite struct IdleWaitTests {
    @Test func cancellingTheTaskAwaitingIdleEndsTheWaitNotTheDownloads() async throws {
        let data = testBytes(count: 256 * 1024, seed: 2860)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1024 })) // minutes a file
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 1
        options.ioTimeout = .seconds(10)
        let queue = try DownloadQueue(directory: directory.path, options: options)
        let download = try queue.add(server.url("/f.bin"))
        let task = Task { try await queue.idle() }
        // Bounded poll until the wait is registered: the task is then suspended in `idle()`.
        let deadline = ContinuousClock.now + .seconds(30)
        while queue.idleWaitCount == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(queue.idleWaitCount == 1)
        #expect(!download.state.isFinal)
        task.cancel()
        // Timed out, the downloads are cancelled: the queue goes idle and the task ends.
        let outcome = try await Self.within(30, else: { queue.cancelAll() }) { await task.result }
        if case .failure(let error) = outcome { #expect(error is CancellationError) } else { Issue.record("the wait ended as if idle") }
        #expect(queue.idleWaitCount == 0)
        #expect(!download.state.isFinal)
        queue.cancelAll()
        try await Self.within(60) { try await queue.idle() }
        #expect(download.state == .cancelled)
    }

    struct TimedOut: Error {}

    /// `body`'s value, or `TimedOut` once `seconds` pass (then `body` is cancelled and
    /// `timedOut` called, to end what task cancellation does not).
    static func within<T: Sendable>(
        _ seconds: Double, else timedOut: @escaping @Sendable () -> Void = {}, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                timedOut()
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw TimedOut() }
            return value
        }
    }
}
