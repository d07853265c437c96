import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Every transition `DownloadState` documents happens, from the situation that causes it, and
/// no other is ever observed.
@Suite struct StateMachineTests {
    let data = testBytes(count: 1 << 20, seed: 67)

    /// The documented transitions, from the diagram on `DownloadState`.
    static let documented: Set<Pair> = [
        Pair(.queued, .probing), Pair(.queued, .paused), Pair(.queued, .cancelled),
        Pair(.probing, .downloading), Pair(.probing, .completed), Pair(.probing, .paused),
        Pair(.probing, .failed), Pair(.probing, .cancelled),
        Pair(.downloading, .probing), Pair(.downloading, .completed), Pair(.downloading, .paused),
        Pair(.downloading, .failed), Pair(.downloading, .cancelled),
        Pair(.paused, .queued), Pair(.paused, .cancelled),
    ]

    struct Pair: Hashable, CustomStringConvertible {
        let from: DownloadState
        let to: DownloadState
        init(_ from: DownloadState, _ to: DownloadState) { self.from = from; self.to = to }
        var description: String { "\(from)→\(to)" }
    }

    /// The transitions `log` saw, starting from `queued`.
    func pairs(_ log: EventLog) -> [Pair] {
        let states = log.states
        return zip([DownloadState.queued] + states, states).map { Pair($0, $1) }
    }

    @Test func everyDocumentedTransitionHappensAndNoOther() throws {
        var seen: [Pair] = []
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var name = 0
        func fresh(_ url: String, continuing: Bool = false) throws -> (Download, EventLog) {
            name += 1
            var options = testOptions(directory)
            options.continuePartial = continuing
            let download = try Download(url: url, destination: directory.file("f\(name).bin"), options: options)
            return (download, EventLog(download))
        }

        let file = TestFile(data)
        // Paced, so that a transfer is still running when the test acts on it.
        let slow = try TestServer(file: file, TestServer.Configuration(rate: { _ in 1_048_576 }))

        // queued → probing → downloading → completed
        var (download, log) = try fresh(slow.url())
        try download.run()
        seen += pairs(log)

        // downloading → paused → queued → probing → … → completed
        (download, log) = try fresh(slow.url())
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.pause()
        #expect(eventually { log.states.last == .paused })
        download.resume()
        #expect(eventually { log.states.last == .completed })
        seen += pairs(log)

        // queued → paused → cancelled, and queued → cancelled
        (download, log) = try fresh(slow.url())
        download.pause()
        download.cancel()
        seen += pairs(log)
        (download, log) = try fresh(slow.url())
        download.cancel()
        seen += pairs(log)

        // probing → failed (404), downloading → failed (403 for a range)
        let refusing = try TestServer { request in request.method == "GET" ? .status(403) : .file(file) }
        let missing = try TestServer { _ in .status(404) }
        (download, log) = try fresh(missing.url())
        _ = try? download.run()
        seen += pairs(log)
        (download, log) = try fresh(refusing.url())
        _ = try? download.run()
        seen += pairs(log)

        // downloading → cancelled
        (download, log) = try fresh(slow.url())
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.cancel()
        #expect(eventually { log.states.last == .cancelled })
        seen += pairs(log)

        // downloading → probing: the file changed mid-download (If-Range answered with a 200).
        let changed = Shared(false)
        let changing = try TestServer(TestServer.Configuration(rate: { _ in 1_048_576 })) { request in
            var answer = file
            if changed.current { answer.etag = "\"fastget-test-2\"" }
            if request.method == "GET" && request.header("Range") != nil { changed.withLock { $0 = true } }
            return .file(answer)
        }
        (download, log) = try fresh(changing.url())
        try download.run()
        seen += pairs(log)

        // probing → completed: the file is already there, whole (continue asked for).
        (download, log) = try fresh(slow.url(), continuing: true)
        try Data(data).write(to: URL(fileURLWithPath: directory.file("f\(name).bin")))
        try download.run()
        seen += pairs(log)

        // probing → paused and probing → cancelled: the probe's answer waits for the test.
        let release = Shared(false)
        let holding = try TestServer { request in
            if request.method == "HEAD" { _ = eventually { release.current } }
            return .file(file)
        }
        for stop in [Download.pause, Download.cancel] {
            release.withLock { $0 = false }
            (download, log) = try fresh(holding.url())
            download.start()
            #expect(eventually { log.states.last == .probing && holding.requests.contains { $0.method == "HEAD" } })
            stop(download)()
            release.withLock { $0 = true }
            #expect(eventually { log.states.last == .paused || log.states.last == .cancelled })
            seen += pairs(log)
            holding.clearRecords()
        }

        let observed = Set(seen)
        #expect(observed.isSubset(of: StateMachineTests.documented), "undocumented: \(observed.subtracting(StateMachineTests.documented))")
        #expect(observed == StateMachineTests.documented, "never seen: \(StateMachineTests.documented.subtracting(observed))")
    }
}
