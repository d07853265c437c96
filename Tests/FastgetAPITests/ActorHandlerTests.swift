import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// State an embedder keeps in an actor of its own.
actor DownloadRecorder {
    var states: [DownloadState] = []
    var finals = 0
}

/// `onEvent(on:)`: the handler runs isolated to the embedder's actor, in order.
@Suite struct ActorHandlerTests {
    @Test func aHandlerOnAnActorUpdatesItsStateInOrder() async throws {
        let data = testBytes(count: 256 * 1024, seed: 2841)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/a.bin"), options: testOptions(directory))
        let recorder = DownloadRecorder()
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEvent(on: recorder) { recorder, event in
            // Isolated: the actor's state without an await.
            if case .stateChanged(let state) = event { recorder.states.append(state) }
            if event.isFinal {
                recorder.finals += 1
                ending.finish()
            }
        }
        _ = try await within(60) { try await download.result() }
        try await within(60) { for await _ in ended {} }
        #expect(await recorder.states == [.probing, .downloading, .completed])
        #expect(await recorder.finals == 1)
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
    }

    @Test func aHandlerRemovedOnItsActorIsNotCalledAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: "http://127.0.0.1:9/a.bin", options: testOptions(directory)) // never started
        let recorder = DownloadRecorder()
        let token = download.onEvent(on: recorder) { recorder, _ in recorder.finals += 1 }
        download.removeHandler(token)
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEvent(on: recorder) { _, event in if event.isFinal { ending.finish() } }
        download.cancel()
        try await within(60) { for await _ in ended {} }
        #expect(await recorder.finals == 0)
    }

    @Test func aHandlerRemovedOnItsActorSkipsTheRest() async throws {
        // The handler removes itself, on the actor, at the first event: the second (the final
        // one) is not handed to it.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: "http://127.0.0.1:9/a.bin", options: testOptions(directory)) // never started
        let recorder = DownloadRecorder()
        let token = Locked<EventHandlerToken?>(nil)
        token.withLock {
            $0 = download.onEvent(on: recorder) { recorder, _ in
                recorder.finals += 1
                if let token = token.withLock({ $0 }) { download.removeHandler(token) }
            }
        }
        let (ended, ending) = AsyncStream<Void>.makeStream()
        download.onEvent(on: recorder) { _, event in if event.isFinal { ending.finish() } }
        download.cancel() // .stateChanged(.cancelled), then .cancelled
        try await within(60) { for await _ in ended {} }
        #expect(await recorder.finals == 1)
    }

    @Test func aDownloadLetGoBeforeItsFinalEventLetsGoOfTheActor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        weak var held: DownloadRecorder?
        do {
            let recorder = DownloadRecorder()
            held = recorder
            let download = try Download(url: "http://127.0.0.1:9/a.bin", options: testOptions(directory)) // never started
            download.onEvent(on: recorder) { _, _ in }
        }
        // The handler's task ends once the download is gone, and with it the last hold on the
        // actor. (Bounded: 30 s.)
        for _ in 0..<3000 where held != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(held == nil)
    }
}
