@testable import Fastget
import FastgetTestSupport
import Glibc
import Testing

/// A queue finds the next download to start without reading its list from the first entry at
/// every add, start and end: a list of thousands would cost its square.
@Suite struct QueueScanTests {
    @Test func aHeldListIsLookedAtOnceAnEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 1, restore: false)
        queue.pauseAll() // every download added waits paused: nothing connects
        let count = 200
        for index in 0..<count { try queue.add("http://127.0.0.1:9/f\(index)") }
        #expect(queue.downloads.allSatisfy { $0.state == .paused })
        // Once each as it is added: a scan from the start each time would be 20100.
        #expect(queue.lookedAt <= 2 * count, "\(queue.lookedAt) looks for \(count) downloads")
        queue.cancelAll()
    }

    /// A queue whose threads cannot be started fails each download with a message, and goes
    /// idle: none is left queued for a thread that never comes (`waitUntilIdle` would block).
    @Test func downloadsWithNoThreadFailAndTheQueueGoesIdle() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(
            directory: directory.path, maximumActive: 2, options: DownloadOptions(), restore: false, session: nil,
            spawn: { _ throws(SystemError) in throw SystemError("pthread_create", errno: EAGAIN) })
        let count = 300
        for index in 0..<count { try queue.add("http://127.0.0.1:9/f\(index)") }
        #expect(queue.waitUntilIdle(timeout: 10))
        #expect(queue.downloads.allSatisfy { $0.state == .failed })
        let error = try #require(throws: FastgetError.self) { try queue.downloads[count - 1].run() }
        #expect(error.code == .localIO && error.message == "cannot start a download thread: no thread could be started")
    }
}
