import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `result()` under Swift concurrency, as an embedder writes it: `Task.cancel()` on the task
/// that awaits a download.
@Suite struct TaskCancellationTests {
    let data = testBytes(count: 2 << 20, seed: 2801)

    @Test func cancellingTheAwaitingTaskCancelsTheDownloadAndKeepsItResumable() async throws {
        // 4 connections at 128 KiB/s: the file would take about 4 s, until `fast` is set.
        let fast = Shared(false)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in fast.current ? nil : 128 * 1024 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let events = download.events()
        let task = Task { try await download.result() }
        // Awaited, not polled: a blocked thread of the shared pool could be the one the task needs.
        let written = try await within(30) { () async -> Int64 in
            for await event in events { if case .progress(let progress) = event, progress.completedBytes > 0 { return progress.completedBytes } }
            return 0
        }
        #expect(written > 0)
        task.cancel()
        let outcome = try await within(30) { await task.result }
        switch outcome {
        case .success: Issue.record("the cancelled task returned the report")
        case .failure(let error): #expect((error as? FastgetError)?.code == .cancelled, "\(error)")
        }
        #expect(download.state == .cancelled)
        let final = try await within(30) { () async -> DownloadEvent? in
            for await event in events where event.isFinal { return event }
            return nil
        }
        if case .cancelled? = final {} else { Issue.record("final event \(String(describing: final))") }
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.part")))
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))

        // Resumable: a new download of the same URL continues from the journal.
        fast.withLock { $0 = true }
        let again = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let report = try await within(30) { try await again.result() }
        #expect(report.resumedBytes > 0)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test func aTaskCancelledBeforeItAwaitsLeavesTheDownloadUnstarted() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let task = Task { () async throws -> DownloadReport in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await download.result()
        }
        let outcome = try await within(30) { await task.result }
        switch outcome {
        case .success: Issue.record("the cancelled task started the download and returned its report")
        case .failure(let error): #expect((error as? FastgetError)?.code == .cancelled, "\(error)")
        }
        #expect(download.state == .queued)
        #expect(server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.part")))
    }
}
