import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// What an app's view model looks like: state only the main actor touches (the compiler holds
/// the handlers below to it; on Linux the main actor need not run on the main thread).
@MainActor final class DownloadModel {
    var states: [DownloadState] = []
    var completedBytes: Int64 = 0
    var finished = false
}

/// `onEventOnMainActor`: an embedder updates `@MainActor` state from events without hopping
/// by hand.
@Suite struct MainActorHandlerTests {
    let data = testBytes(count: 512 * 1024, seed: 2840)

    @Test @MainActor func aMainActorHandlerUpdatesMainActorStateInOrder() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/m.bin"), options: testOptions(directory))
        let model = DownloadModel()
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEventOnMainActor { event in
            switch event {
            case .stateChanged(let state): model.states.append(state)
            case .progress(let progress): model.completedBytes = progress.completedBytes
            default: break
            }
            if event.isFinal {
                model.finished = true
                ending.finish()
            }
        }
        let report = try await within(60) { try await download.result() }
        try await within(60) { for await _ in ended {} }
        #expect(model.finished)
        #expect(model.states == [.probing, .downloading, .completed])
        #expect(model.completedBytes <= report.bytes)
    }

    /// Events already on their way to the main actor when the handler is removed there are
    /// not handed to it: the main actor is held (no await) from before the cancel until after
    /// the removal, so both events wait in the handler's buffer when it is removed.
    @Test @MainActor func aHandlerRemovedOnTheMainActorIsNotCalledAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: "http://127.0.0.1:9/m.bin", options: testOptions(directory)) // never started
        let model = DownloadModel()
        let token = download.onEventOnMainActor { _ in model.states.append(.failed) }
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEventOnMainActor { event in if event.isFinal { ending.finish() } }
        let delivered = Shared(false)
        download.onEvent { event in if event.isFinal { delivered.withLock { $0 = true } } }
        download.cancel() // .stateChanged(.cancelled), .cancelled: delivered on another thread
        #expect(eventually(timeout: 30) { delivered.current }) // blocks the main actor, bounded
        download.removeHandler(token)
        // The main actor runs its tasks in order: the removed handler's, made first, ends before
        // the second handler's sees the final event.
        try await within(60) { for await _ in ended {} }
        #expect(model.states.isEmpty)
    }
}
