@testable import Fastget
import Testing

/// The queue's indexes, by URL and by destination, as adds, removals, restores and a server's
/// names change them: no claim is lost while its download is in the queue, none outlives it.
@Suite struct QueueIndexTests {
    func download(_ url: String, _ destination: String, paused: Bool = true) throws -> Download {
        try Download(url: url, destination: destination, options: DownloadOptions(), session: nil, state: paused ? .paused : .queued)
    }

    /// Two journals of one URL restored: removing the first leaves the second found by its URL.
    @Test func removingOneOfTwoRestoredDownloadsOfAURLKeepsTheOther() throws {
        var entries = DownloadQueue.Entries()
        let (first, second) = (try download("http://h/f", "/d/f-1"), try download("http://h/f", "/d/f"))
        entries.insert(first)
        entries.insert(second)
        #expect(entries.live("http://h/f") === first)
        entries.delete(first)
        #expect(entries.live("http://h/f") === second && entries.downloads.count == 1)
        #expect(entries.byDestination["/d/f-1"] == nil && entries.byDestination["/d/f"]?.count == 1)
    }

    /// A name claimed by two (one moved onto another's): removing one keeps the other's claim.
    @Test func aClaimSharedByTwoSurvivesEitherLeaving() throws {
        let queue = try DownloadQueue(directory: "/nonexistent-fastget-test", restore: false)
        let (first, second) = (try download("http://h/a", "/d/named.bin"), try download("http://h/b", "/d/b"))
        queue.state.withLock {
            $0.insert(first)
            $0.insert(second)
        }
        queue.moved(second, from: "/d/b", to: "/d/named.bin")
        #expect(queue.state.withLock { $0.byDestination["/d/named.bin"]?.count } == 2)
        #expect(queue.state.withLock { $0.byDestination["/d/b"] } == nil)
        queue.state.withLock { $0.delete(first) }
        #expect(queue.state.withLock { $0.byDestination["/d/named.bin"]?.first } === second)
        // A move told for a download no longer in the queue claims nothing.
        queue.moved(first, from: "/d/named.bin", to: "/d/other")
        #expect(queue.state.withLock { $0.byDestination["/d/other"] } == nil)
    }
}
