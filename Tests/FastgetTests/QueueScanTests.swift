@testable import Fastget
import FastgetTestSupport
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
}
