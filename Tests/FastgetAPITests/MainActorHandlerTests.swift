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

    @Test @MainActor func aHandlerRemovedOnTheMainActorIsNotCalledAgain() async throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/m.bin"), options: testOptions(directory))
        let model = DownloadModel()
        let token = download.onEventOnMainActor { _ in model.states.append(.failed) }
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEventOnMainActor { event in if event.isFinal { ending.finish() } }
        download.removeHandler(token)
        _ = try await within(60) { try await download.result() }
        try await within(60) { for await _ in ended {} }
        #expect(model.states.isEmpty)
    }
}
