import Fastget
import FastgetTestSupport
import Foundation
import Testing

@Suite struct DownloadQueueTests {
    /// Twenty small files, /f0 … /f19, each different.
    static let files = (0..<20).map { testBytes(count: 96 * 1024, seed: UInt64(100 + $0)) }

    /// Serves /fN at `rate` bytes per second per connection.
    func server(rate: Double) throws -> TestServer {
        let files = DownloadQueueTests.files
        return try TestServer(TestServer.Configuration(rate: { _ in rate })) { request in
            guard let index = Int(request.target.dropFirst(2)), request.target.hasPrefix("/f"), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
    }

    @Test func addingAURLTwiceReturnsTheSameDownload() throws {
        let server = try server(rate: 256 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        let first = try queue.add(server.url("/f1"))
        let again = try queue.add(server.url("/f1"))
        #expect(first === again)
        #expect(queue.downloads.count == 1)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(first.state == .completed)
        // Once ended, the same URL is a new download: it finds the file it completed, marked
        // as such, and is complete at once.
        let later = try queue.add(server.url("/f1"))
        #expect(later !== first && queue.downloads.count == 1)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(later.state == .completed)
    }

    @Test func anEndedDownloadsNameIsNotGivenToAnotherURL() throws {
        let server = try server(rate: 1e9)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        let first = try queue.add(server.url("/f1"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(first.state == .completed)
        // A list read as it arrives adds its next line only now: the saved file stays.
        #expect(throws: FastgetError.self) { try queue.add(server.url("/f2"), destination: first.destination) }
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(SHA256.hex(ofFile: first.destination) == SHA256.hex(DownloadQueueTests.files[1]))
        #expect(server.requests.allSatisfy { $0.target == "/f1" }, "\(server.requests.map(\.target))")
    }

    @Test func aListIsAddedWholeOrNotAtAll() throws {
        let server = try server(rate: 1e9)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        // Two URLs of the list save to one name: nothing is added, nothing starts.
        let clashing = [
            DownloadQueue.Entry(server.url("/f1")), DownloadQueue.Entry(server.url("/f2"), destination: directory.file("x")),
            DownloadQueue.Entry(server.url("/f3"), destination: directory.file("x")),
        ]
        #expect(throws: FastgetError.self) { try queue.add(contentsOf: clashing) }
        // An entry that is no URL at all, last: the same.
        #expect(throws: FastgetError.self) { try queue.add(contentsOf: [DownloadQueue.Entry(server.url("/f1")), DownloadQueue.Entry("ftp://x/y")]) }
        #expect(queue.downloads.isEmpty && queue.isIdle)
        #expect(server.requests.isEmpty, "\(server.requests.map(\.target))")

        // A list that holds: every entry, in order; a URL given twice is one download.
        let added = try queue.add(contentsOf: ["/f1", "/f2", "/f1"].map { DownloadQueue.Entry(server.url($0)) })
        #expect(added.count == 3 && added[0] === added[2] && queue.downloads.count == 2)
        #expect(queue.waitUntilIdle(timeout: 30))
        for (download, index) in zip(added, [1, 2, 1]) {
            #expect(download.state == .completed && SHA256.hex(ofFile: download.destination) == SHA256.hex(DownloadQueueTests.files[index]))
        }
    }

    @Test func aListThatResumesAPausedDownloadStillTracksEveryEntry() throws {
        // The first entry resumes a paused download, which looks for work at once; the second
        // fails at once (404). The queue must know the second before anything can start it,
        // or its end is never counted and the queue never goes idle. (Paced, so that the pause
        // lands while the first is running.)
        let server = try server(rate: 64 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        queue.pauseAll()
        let paused = try queue.add(server.url("/f1"))
        queue.resumeAll()
        paused.pause()
        #expect(queue.waitUntilIdle(timeout: 30))
        let added = try queue.add(contentsOf: [DownloadQueue.Entry(server.url("/f1")), DownloadQueue.Entry(server.url("/missing"))])
        #expect(added[0] === paused)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(paused.state == .completed && added[1].state == .failed)
    }

    @Test func whatIsAddedAfterPauseAllWaitsPaused() throws {
        let server = try server(rate: 1e9)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        queue.pauseAll()
        let held = try queue.add(server.url("/f3"))
        #expect(held.state == .paused)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(server.requests.isEmpty)
        queue.resumeAll()
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(held.state == .completed)
        #expect(SHA256.hex(ofFile: held.destination) == SHA256.hex(DownloadQueueTests.files[3]))
    }

    @Test func aDownloadResumedAsItPausesStillStarts() throws {
        // Its observers hear `paused` before the queue frees its slot: one that resumes it at
        // once makes it queued while the queue still counts it as launched. The queue must
        // look at it again when the slot is freed, not pass it by for good.
        let server = try server(rate: 64 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        let paused = Locked(false)
        queue.onEvent { download, event in
            switch event {
            case .progress where !paused.withLock({ $0 }):
                download.pause()
            case .stateChanged(.paused)
            where !paused.withLock({ done in
                defer { done = true }; return done
            }):
                download.resume()
            default: break
            }
        }
        let download = try queue.add(server.url("/f4"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(paused.withLock { $0 })
        #expect(download.state == .completed)
        #expect(SHA256.hex(ofFile: download.destination) == SHA256.hex(DownloadQueueTests.files[4]))
    }

    @Test func theQueuesHandlerSeesEveryDownloadFromItsFirstEvent() throws {
        let server = try server(rate: 4 * 1_048_576)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 4, options: testOptions(directory, segments: 1))
        let urls = (0..<8).map { server.url("/f\($0)") }
        for url in urls { try queue.add(url) }
        #expect(queue.waitUntilIdle(timeout: 30))
        // Again: each file is complete already, and its download ends as soon as it starts,
        // before `add` returns as often as not. The queue's handler is on it before it starts.
        let completed = Locked<[String]>([])
        queue.onEvent { download, event in
            if case .completed(let report) = event, report.workers == 0 { completed.withLock { $0.append(download.url.description) } }
        }
        for url in urls { try queue.add(url) }
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(completed.withLock { $0 }.sorted() == urls.sorted())
    }

    @Test func neverRunsMoreThanTheLimitAtOnce() throws {
        // 96 KiB at 384 KiB/s: each download lasts about a quarter of a second.
        let server = try server(rate: 384 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 4, options: testOptions(directory, segments: 1))
        for index in 0..<20 { try queue.add(server.url("/f\(index)")) }
        #expect(queue.waitUntilIdle(timeout: 60))
        for (index, download) in queue.downloads.enumerated() {
            #expect(download.state == .completed)
            #expect(SHA256.hex(ofFile: directory.file("f\(index)")) == SHA256.hex(DownloadQueueTests.files[index]))
        }
        // From the server's log: each file's first request to its last response, overlapped.
        #expect(server.waitUntilIdle())
        let (files, most) = server.mostFilesAtOnce()
        #expect(files == 20)
        #expect(most <= 4 && most >= 2, "at most \(most) at once")
    }

    @Test func aNewQueueOnTheSameDirectoryRestoresAndFinishesEveryDownload() throws {
        let server = try server(rate: 32 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        options.checkpointPeriod = .seconds(0.1)
        var queue: DownloadQueue? = try DownloadQueue(directory: directory.path, maximumActive: 3, options: options)
        for index in 0..<3 { try queue!.add(server.url("/f\(index)")) }
        let downloads = queue!.downloads
        let logs = downloads.map(EventLog.init)
        // Let every download get somewhere, then stop them all and drop the queue.
        #expect(eventually { logs.allSatisfy { $0.completedBytes > 0 } })
        queue!.pauseAll()
        #expect(eventually { downloads.allSatisfy { $0.state == .paused } })
        queue = nil

        server.clearRecords()
        let restored = try DownloadQueue(directory: directory.path, maximumActive: 3, options: options)
        #expect(restored.downloads.count == 3)
        #expect(restored.downloads.allSatisfy { $0.state == .paused })
        #expect(Set(restored.downloads.map(\.destination)) == Set((0..<3).map { directory.file("f\($0)") }))
        restored.resumeAll()
        #expect(restored.waitUntilIdle(timeout: 60))
        for index in 0..<3 {
            #expect(SHA256.hex(ofFile: directory.file("f\(index)")) == SHA256.hex(DownloadQueueTests.files[index]))
        }
        #expect(restored.downloads.allSatisfy { $0.state == .completed })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["f0", "f1", "f2"])
        // The restored downloads continued: no range started at byte 0 again.
        #expect(!server.requests.contains { $0.method == "GET" && $0.header("Range")?.hasPrefix("bytes=0-") == true })
    }

    @Test func removeWithFilesDeletesThePartAndJournal() throws {
        let server = try server(rate: 64 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        let kept = try queue.add(server.url("/f1"))
        let dropped = try queue.add(server.url("/f2"))
        // Both have files to keep or delete (under ThreadSanitizer, `kept` may start late).
        #expect(eventually { [kept, dropped].allSatisfy { FileManager.default.fileExists(atPath: $0.destination + ".fastget") } })
        queue.remove(dropped, deletingFiles: true)
        queue.remove(kept)
        #expect(queue.downloads.isEmpty)
        #expect(eventually { kept.state == .cancelled && dropped.state == .cancelled })
        #expect(!FileManager.default.fileExists(atPath: dropped.destination + ".part"))
        #expect(!FileManager.default.fileExists(atPath: dropped.destination + ".fastget"))
        #expect(FileManager.default.fileExists(atPath: kept.destination + ".part"))
    }

    @Test func awaitingAQueuedDownloadWaitsForItsSlot() async throws {
        let server = try server(rate: 192 * 1024)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 1, options: testOptions(directory, segments: 1))
        let first = try queue.add(server.url("/f1"))
        let second = try queue.add(server.url("/f2"))
        let log = EventLog(second)
        let waiting = Task { try await second.result() }
        // While the first runs, awaiting the second does not start it.
        #expect(eventually { first.state == .downloading })
        #expect(second.state == .queued)
        let report = try await waiting.value
        #expect(report.bytes == Int64(DownloadQueueTests.files[2].count))
        #expect(first.state == .completed && log.states.first == .probing)
        #expect(SHA256.hex(ofFile: directory.file("f2")) == SHA256.hex(DownloadQueueTests.files[2]))
    }
}
