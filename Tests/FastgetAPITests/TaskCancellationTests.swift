import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `result()` under Swift concurrency, as an embedder writes it: `Task.cancel()` on the task
/// that awaits a download.
@Suite struct TaskCancellationTests {
    let data = testBytes(count: 2 << 20, seed: 2801)

    @Test func cancellingTheAwaitingTaskCancelsTheDownloadAndKeepsItResumable() async throws {
        // 4 connections at 64 KiB/s: the file would take 8 s, until `fast` is set.
        let fast = Shared(false)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in fast.current ? nil : 64 * 1024 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let events = download.events()
        // The task is cancelled from the coordinator thread once bytes are on disk: however
        // late this test's own task runs again, the cancel comes mid-transfer.
        let gate = Shared<(task: Task<DownloadReport, any Error>?, written: Int64)>((nil, 0))
        download.onEvent { event in
            guard case .progress(let progress) = event, progress.completedBytes > 0 else { return }
            gate.withLock { gate in
                guard gate.written == 0 else { return }
                gate.written = progress.completedBytes
                gate.task?.cancel()
            }
        }
        let task = Task { try await download.result() }
        gate.withLock { gate in
            gate.task = task
            if gate.written > 0 { task.cancel() } // bytes came before the task was known here
        }
        let outcome = try await within(60) { await task.result }
        switch outcome {
        case .success: Issue.record("the cancelled task returned the report")
        case .failure(let error): #expect((error as? FastgetError)?.code == .cancelled, "\(error)")
        }
        #expect(download.state == .cancelled)
        let final = try await within(60) { () async -> DownloadEvent? in
            for await event in events where event.isFinal { return event }
            return nil
        }
        if case .cancelled? = final {} else { Issue.record("final event \(String(describing: final))") }
        #expect(gate.current.written > 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.part")))
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))

        // Resumable: a new download of the same URL continues from the journal.
        fast.withLock { $0 = true }
        let again = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let report = try await within(60) { try await again.result() }
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
        let outcome = try await within(60) { await task.result }
        switch outcome {
        case .success: Issue.record("the cancelled task started the download and returned its report")
        case .failure(let error): #expect((error as? FastgetError)?.code == .cancelled, "\(error)")
        }
        #expect(download.state == .queued)
        #expect(server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.part")))
    }
}
