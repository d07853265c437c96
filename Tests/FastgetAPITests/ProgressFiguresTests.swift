import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// What an app draws from a progress snapshot: the fraction done, the speed, the time left.
@Suite struct ProgressFiguresTests {
    @Test func theFractionAndTheTimeLeftFollowFromTheFigures() {
        let quarter = DownloadProgress(totalBytes: 1000, completedBytes: 250, elapsed: 1, segments: [], bytesPerSecond: 50)
        #expect(quarter.fractionCompleted == 0.25 && quarter.estimatedTimeRemaining == .seconds(15))
        let unknownLength = DownloadProgress(totalBytes: nil, completedBytes: 250, elapsed: 1, segments: [], bytesPerSecond: 50)
        #expect(unknownLength.fractionCompleted == nil && unknownLength.estimatedTimeRemaining == nil)
        let notMeasured = DownloadProgress(totalBytes: 1000, completedBytes: 250, elapsed: 0, segments: [])
        #expect(notMeasured.bytesPerSecond == 0 && notMeasured.estimatedTimeRemaining == nil)
        let empty = DownloadProgress(totalBytes: 0, completedBytes: 0, elapsed: 0, segments: [], bytesPerSecond: 1)
        #expect(empty.fractionCompleted == 1 && empty.estimatedTimeRemaining == .zero)
    }

    @Test func aCountThatStartsOverStartsTheRateOver() {
        // A stream retried from its first byte: the rate is not negative, it is measured anew.
        var window = SpeedWindow(seconds: 3)
        window.add(time: 0, bytes: 0)
        window.add(time: 1, bytes: 1000)
        #expect(window.speed == 1000)
        window.add(time: 2, bytes: 100)
        #expect(window.speed == 0)
        window.add(time: 3, bytes: 600)
        #expect(window.speed == 500)
    }

    @Test func aPacedDownloadReportsItsSpeed() throws {
        // One connection at 1 MiB/s for 1.5 MiB: once a second has passed, the speed is about
        // the pace (the window is 3 s), and the time left is what is left at that speed.
        let data = testBytes(count: 3 << 19, seed: 61)
        let rate = 1_048_576.0
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in rate }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/p.bin"), options: testOptions(directory, segments: 1))
        let snapshots = Locked<[DownloadProgress]>([])
        download.onEvent { event in
            if case .progress(let progress) = event { snapshots.withLock { $0.append(progress) } }
        }
        _ = try download.run()
        #expect(SHA256.hex(ofFile: directory.file("p.bin")) == SHA256.hex(data))
        let seen = snapshots.withLock { $0 }
        #expect(seen.allSatisfy { $0.fractionCompleted == Double($0.completedBytes) / Double(data.count) })
        let late = seen.filter { $0.elapsed >= 1 && $0.completedBytes < data.count }
        #expect(!late.isEmpty)
        for progress in late {
            #expect(progress.bytesPerSecond > rate / 2 && progress.bytesPerSecond < rate * 2, "\(progress.bytesPerSecond) at \(progress.elapsed) s")
            let left = try #require(progress.estimatedTimeRemaining)
            let expected = Double(Int64(data.count) - progress.completedBytes) / progress.bytesPerSecond
            #expect(abs(Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18 - expected) < 0.01)
        }
    }
}

/// The times an app shows count the whole download: a run that resumes a journal (after a
/// pause, a stop or a crash) counts on from the time the earlier runs recorded.
@Suite struct ProgressAcrossResumesTests {
    let data = testBytes(count: 2 << 20, seed: 83)

    @Test func totalTimesCountOnFromTheEarlierRuns() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let started = ProcessInfo.processInfo.systemUptime
        let first = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let log = EventLog(first)
        first.start()
        let lastElapsed = { log.events.compactMap { if case .progress(let p) = $0 { p.elapsed } else { nil } }.last ?? 0 }
        #expect(eventually { lastElapsed() >= 0.4 })
        first.cancel() // keeps the journal, as a crash after a checkpoint would
        #expect(eventually { log.finalEvents.count == 1 })
        let firstRun = ProcessInfo.processInfo.systemUptime - started
        let ranBefore = lastElapsed()

        let second = try Download(url: server.url("/f.bin"), options: testOptions(directory))
        let secondLog = EventLog(second)
        let report = try second.run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.resumedBytes > 0)
        // The earlier run's time, from its start to the journal its stop wrote (less its probe).
        let earlier = report.totalSeconds - report.seconds
        #expect(earlier >= ranBefore - 0.1 && earlier <= firstRun, "\(earlier) s; the first run: \(ranBefore)…\(firstRun) s")
        let snapshots = secondLog.events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
        #expect(!snapshots.isEmpty && snapshots.allSatisfy { abs($0.totalElapsed - $0.elapsed - earlier) < 0.001 })
    }
}
