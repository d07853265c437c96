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

    /// Downloads into one directory, each under a new name, with the log of its events.
    final class Downloads {
        let directory: TemporaryDirectory
        private var name = 0
        init(_ directory: TemporaryDirectory) { self.directory = directory }

        func fresh(_ url: String, continuing: Bool = false) throws -> (Download, EventLog) {
            name += 1
            var options = testOptions(directory)
            options.continuePartial = continuing
            let download = try Download(url: url, destination: path, options: options)
            return (download, EventLog(download))
        }

        /// Where the latest download saves its file.
        var path: String { directory.file("f\(name).bin") }
    }

    @Test func everyDocumentedTransitionHappensAndNoOther() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloads = Downloads(directory)
        let file = TestFile(data)
        // Paced, so that a transfer is still running when the test acts on it.
        let slow = try TestServer(file: file, TestServer.Configuration(rate: { _ in 1_048_576 }))

        var seen = try runsPausesAndQueuedStops(downloads, slow)
        seen += try failuresAndACancelledTransfer(downloads, file, slow)
        seen += try restartsAndAFileAlreadyThere(downloads, file, slow)
        seen += try stopsDuringTheProbe(downloads, file)

        let observed = Set(seen)
        #expect(observed.isSubset(of: StateMachineTests.documented), "undocumented: \(observed.subtracting(StateMachineTests.documented))")
        #expect(observed == StateMachineTests.documented, "never seen: \(StateMachineTests.documented.subtracting(observed))")
    }

    /// queued → probing → downloading → completed; downloading → paused → queued → probing;
    /// queued → paused → cancelled; queued → cancelled.
    func runsPausesAndQueuedStops(_ downloads: Downloads, _ slow: TestServer) throws -> [Pair] {
        var seen: [Pair] = []
        var (download, log) = try downloads.fresh(slow.url())
        try download.run()
        seen += pairs(log)

        // downloading → paused → queued → probing → … → completed
        (download, log) = try downloads.fresh(slow.url())
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.pause()
        #expect(eventually { log.states.last == .paused })
        download.resume()
        #expect(eventually { log.states.last == .completed })
        seen += pairs(log)

        // queued → paused → cancelled, and queued → cancelled (told on a delivery thread,
        // never inside the call)
        (download, log) = try downloads.fresh(slow.url())
        download.pause()
        download.cancel()
        #expect(eventually { log.finalEvents.count == 1 })
        seen += pairs(log)
        (download, log) = try downloads.fresh(slow.url())
        download.cancel()
        #expect(eventually { log.finalEvents.count == 1 })
        seen += pairs(log)
        return seen
    }

    /// probing → failed (404), downloading → failed (403 for a range after the probe's GET),
    /// downloading → cancelled.
    func failuresAndACancelledTransfer(_ downloads: Downloads, _ file: TestFile, _ slow: TestServer) throws -> [Pair] {
        var seen: [Pair] = []
        let refusing = try TestServer { request in
            request.method == "GET" && request.header("Range") != "bytes=0-" ? .status(403) : .file(file)
        }
        let missing = try TestServer { _ in .status(404) }
        var (download, log) = try downloads.fresh(missing.url())
        _ = try? download.run()
        seen += pairs(log)
        (download, log) = try downloads.fresh(refusing.url())
        _ = try? download.run()
        seen += pairs(log)

        (download, log) = try downloads.fresh(slow.url())
        download.start()
        #expect(eventually { log.completedBytes > 0 })
        download.cancel()
        #expect(eventually { log.states.last == .cancelled })
        seen += pairs(log)
        return seen
    }

    /// downloading → probing: the file changed mid-download (If-Range answered with a 200);
    /// probing → completed: the file is already there, whole (continue asked for).
    func restartsAndAFileAlreadyThere(_ downloads: Downloads, _ file: TestFile, _ slow: TestServer) throws -> [Pair] {
        var seen: [Pair] = []
        let changed = Shared(false)
        let changing = try TestServer(TestServer.Configuration(rate: { _ in 1_048_576 })) { request in
            var answer = file
            if changed.current { answer.etag = "\"fastget-test-2\"" }
            if request.method == "GET" && request.header("Range") != nil { changed.withLock { $0 = true } }
            return .file(answer)
        }
        var (download, log) = try downloads.fresh(changing.url())
        try download.run()
        seen += pairs(log)

        (download, log) = try downloads.fresh(slow.url(), continuing: true)
        try Data(data).write(to: URL(fileURLWithPath: downloads.path))
        try download.run()
        seen += pairs(log)
        return seen
    }

    /// probing → paused and probing → cancelled: the probe's answer waits for the test.
    func stopsDuringTheProbe(_ downloads: Downloads, _ file: TestFile) throws -> [Pair] {
        var seen: [Pair] = []
        let release = Shared(false)
        let holding = try TestServer { request in
            if request.header("Range") == "bytes=0-" { _ = eventually { release.current } } // the probe's GET
            return .file(file)
        }
        for stop in [Download.pause, Download.cancel] {
            release.withLock { $0 = false }
            let (download, log) = try downloads.fresh(holding.url())
            download.start()
            #expect(eventually { log.states.last == .probing && holding.requests.contains { $0.header("Range") == "bytes=0-" } })
            stop(download)()
            release.withLock { $0 = true }
            #expect(eventually { log.states.last == .paused || log.states.last == .cancelled })
            seen += pairs(log)
            holding.clearRecords()
        }
        return seen
    }
}
