import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Control from other threads, the state machine and the events, through the public API only.
@Suite struct DownloadControlTests {
    let data = testBytes(count: 2 << 20, seed: 61)

    /// A server that sends each connection at `rate` bytes per second, so a transfer lasts.
    func slowServer(rate: Double = 2 * 1_048_576) throws -> TestServer {
        try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in rate }))
    }

    @Test func pauseFromAnotherThreadThenResumeGivesTheSameBytes() async throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(download)
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.pause()
        #expect(eventually { log.states.last == .paused })
        let paused = log.completedBytes
        #expect(paused > 0 && paused < Int64(data.count))
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))

        download.resume()
        let report = try await download.result()
        #expect(report.resumedBytes > 0)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(log.states == [.probing, .downloading, .paused, .queued, .probing, .downloading, .completed])
        #expect(log.finalEvents.count == 1)
    }

    @Test func cancelAndDeleteLeavesNoFiles() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(download)
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.cancelAndDelete()
        #expect(eventually { log.finalEvents.count == 1 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(log.states.last == .cancelled)
        #expect(log.finalEvents.count == 1)
        if case .cancelled = log.finalEvents.first {} else { Issue.record("final event \(log.finalEvents)") }
    }

    @Test func cancelKeepsAJournalANewDownloadResumes() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(first)
        first.start()
        // The first segment in particular (which worker gets going first is the scheduler's call):
        // the rerun must not ask for it from its start.
        #expect(eventually { log.segments.first.map { $0.written > $0.range.start } ?? false })
        first.cancel()
        #expect(eventually { log.states.last == .cancelled })
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.part")))

        server.clearRecords()
        let second = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let report = try second.run()
        #expect(report.resumedBytes > 0)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        // Only the missing ranges were asked for, each guarded by If-Range.
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(!gets.isEmpty && gets.allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
        #expect(!gets.contains { $0.header("Range") == "bytes=0-524287" })
    }

    @Test func eventsComeInOrderFromTheCallingThreadAtABoundedRate() throws {
        let server = try slowServer(rate: 4 * 1_048_576)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.progressPeriod = .seconds(0.1)
        let download = try Download(url: server.url("/f.bin"), options: options)
        let log = EventLog(download)
        let started = ProcessInfo.processInfo.systemUptime
        try download.run()
        let seconds = ProcessInfo.processInfo.systemUptime - started

        let events = log.events
        // The size before any progress; exactly one final event, and it is the last.
        let size = try #require(events.firstIndex { if case .sizeKnown(let length) = $0 { length == Int64(data.count) } else { false } })
        let firstProgress = try #require(events.firstIndex { if case .progress = $0 { true } else { false } })
        #expect(size < firstProgress)
        #expect(log.finalEvents.count == 1 && events.last?.isFinal == true)
        if case .completed(let report) = events.last { #expect(report.bytes == Int64(data.count)) } else { Issue.record("\(events.last!)") }
        #expect(log.states == [.probing, .downloading, .completed])
        // Every event on the thread that called run(): none from a worker.
        #expect(log.threads == [UInt(pthread_self())])
        // At most one progress event per interval (plus the final snapshot).
        #expect(log.progressCount >= 2 && Double(log.progressCount) <= seconds / 0.1 + 2, "\(log.progressCount) in \(seconds) s")
    }

    @Test func theAsyncStreamEndsAfterTheFinalEvent() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let stream = download.events()
        download.start()
        var states: [DownloadState] = []
        var finals = 0
        for await event in stream {
            if case .stateChanged(let state) = event { states.append(state) }
            if event.isFinal { finals += 1 }
        }
        #expect(states == [.probing, .downloading, .completed])
        #expect(finals == 1)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test func callsThatDoNotApplyChangeNothing() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(download)
        download.resume() // not paused: nothing
        #expect(download.state == .queued && log.events.isEmpty)
        let report = try download.run()
        download.pause() // ended: nothing
        download.resume()
        download.cancel()
        download.cancelAndDelete() // a completed file is never removed
        download.start()
        #expect(download.state == .completed)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(try download.run().path == report.path) // the outcome again, no new transfer
        #expect(server.requests.filter { $0.header("Range") == "bytes=0-" }.count == 1) // one probe
        #expect(log.states == [.probing, .downloading, .completed] && log.finalEvents.count == 1)
    }

    @Test func runWhileRunningElsewhereIsAUsageError() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(download)
        download.start()
        #expect(eventually { log.states.last == .downloading })
        #expect(throws: FastgetError.self) { try download.run() }
        download.cancelAndDelete()
        #expect(eventually { log.states.last == .cancelled })
    }

    /// A queued download made no request and took nothing over: cancelAndDelete leaves another
    /// program's `.part` and a file at the journal's name that is no journal.
    @Test func cancelAndDeleteOfAQueuedDownloadKeepsFilesThatAreNotFastgets() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let part = Data(data[0..<100_000])
        let notes = Data("notes, not a journal\n".utf8)
        try part.write(to: URL(fileURLWithPath: directory.file("f.bin.part")))
        try notes.write(to: URL(fileURLWithPath: directory.file("f.bin.fastget")))
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        download.cancelAndDelete()
        #expect(download.state == .cancelled)
        #expect(FileManager.default.contents(atPath: directory.file("f.bin.part")) == part)
        #expect(FileManager.default.contents(atPath: directory.file("f.bin.fastget")) == notes)
        #expect(server.requests.isEmpty)
    }
}
