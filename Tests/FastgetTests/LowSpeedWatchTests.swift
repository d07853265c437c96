@testable import Fastget
import Testing

/// The low-speed decisions on made-up ticks: averages over the window, never one slow moment;
/// a drop only while the download keeps up, else the download fails.
@Suite struct LowSpeedWatchTests {
    typealias Body = LowSpeedWatch.Body

    @Test func aConnectionIsNotJudgedBeforeItsBodyRanTheWholeWindow() {
        var watch = LowSpeedWatch(limit: 1000, seconds: 1)
        #expect(watch.tick(now: 0, downloaded: 0, bodies: [Body(worker: 0, since: 5, bytes: 0)]) == .fine)
        #expect(watch.tick(now: 0.9, downloaded: 0, bodies: [Body(worker: 0, since: 5, bytes: 0)]) == .fine)
        #expect(watch.tick(now: 1.0, downloaded: 0, bodies: [Body(worker: 0, since: 5, bytes: 0)]) == .fail(0))
    }

    @Test func aConnectionWaitingForItsAnswerIsNeverJudged() {
        var watch = LowSpeedWatch(limit: 1000, seconds: 1)
        for tick in 0..<50 {
            #expect(watch.tick(now: Double(tick) / 10, downloaded: 0, bodies: [Body(worker: 0, since: 0, bytes: 0)]) == .fine)
        }
    }

    @Test func aBurstThenAPauseAveragesOverTheWindow() {
        var watch = LowSpeedWatch(limit: 1000, seconds: 1)
        // 1500 bytes at once, then nothing: 1500 bytes/s over the first second, fine until
        // the burst leaves the window.
        #expect(watch.tick(now: 0, downloaded: 0, bodies: [Body(worker: 0, since: 1, bytes: 0)]) == .fine)
        #expect(watch.tick(now: 0.5, downloaded: 1500, bodies: [Body(worker: 0, since: 1, bytes: 1500)]) == .fine)
        #expect(watch.tick(now: 1.0, downloaded: 1500, bodies: [Body(worker: 0, since: 1, bytes: 1500)]) == .fine)
        #expect(watch.tick(now: 1.5, downloaded: 1500, bodies: [Body(worker: 0, since: 1, bytes: 1500)]) == .fail(0))
    }

    @Test func aSlowConnectionIsDroppedWhileTheDownloadKeepsUp() {
        var watch = LowSpeedWatch(limit: 1000, seconds: 1)
        var fast: Int64 = 0
        var verdicts: [LowSpeedWatch.Verdict] = []
        for tick in 0...10 {
            fast += 10_000
            let bodies = [Body(worker: 0, since: 1, bytes: fast), Body(worker: 1, since: 2, bytes: Int64(tick))]
            verdicts.append(watch.tick(now: Double(tick) / 10, downloaded: fast + Int64(tick), bodies: bodies))
        }
        #expect(verdicts.dropLast().allSatisfy { $0 == .fine })
        #expect(verdicts.last == .drop([1: 10]))
        // Its next body starts a new clock: not judged again before a whole window.
        let next = watch.tick(
            now: 1.1, downloaded: fast + 20_000, bodies: [Body(worker: 0, since: 1, bytes: fast + 20_000), Body(worker: 1, since: 3, bytes: 10)])
        #expect(next == .fine)
    }
}

/// The limit is the download's: connections sharing a capped link are not slow.
@Suite struct LowSpeedShareTests {
    typealias Body = LowSpeedWatch.Body

    /// Ticks 10 a second for `seconds` with `rates[i]` bytes/s on worker i; the verdicts.
    static func run(_ watch: inout LowSpeedWatch, rates: [Int64], seconds: Int = 2) -> [LowSpeedWatch.Verdict] {
        (0...(seconds * 10)).map { tick in
            let bodies = rates.indices.map { Body(worker: $0, since: UInt64($0 + 1), bytes: rates[$0] * Int64(tick) / 10) }
            return watch.tick(now: Double(tick) / 10, downloaded: bodies.reduce(0) { $0 + $1.bytes }, bodies: bodies)
        }
    }

    @Test func eightConnectionsSharingACappedLinkAreNotDropped() {
        // A server capping a client at 1500 bytes/s over 8 connections, a limit of 1000: each
        // runs at 187, below the limit but above its share (125), and the download keeps up.
        var watch = LowSpeedWatch(limit: 1000, seconds: 1)
        let verdicts = LowSpeedShareTests.run(&watch, rates: Array(repeating: 187, count: 8))
        #expect(verdicts.allSatisfy { $0 == .fine }, "\(verdicts)")
    }

    @Test func anUnevenShareIsNotCrawling() {
        // Below its share (75) but not under a quarter of its peers: a capped link's unfairness.
        var watch = LowSpeedWatch(limit: 300, seconds: 1)
        let verdicts = LowSpeedShareTests.run(&watch, rates: [100, 100, 100, 60])
        #expect(verdicts.allSatisfy { $0 == .fine }, "\(verdicts)")
    }

    @Test func aCrawlingConnectionAmongPeersIsDropped() {
        var watch = LowSpeedWatch(limit: 300, seconds: 1)
        let verdicts = LowSpeedShareTests.run(&watch, rates: [100, 100, 100, 20])
        #expect(verdicts.contains(.drop([3: 20])), "\(verdicts)")
    }

    @Test func underOurOwnRateLimitNoConnectionIsDropped() {
        // --limit-rate's shared bucket sets each connection's pace, not the server.
        var watch = LowSpeedWatch(limit: 300, seconds: 1, drops: false)
        let verdicts = LowSpeedShareTests.run(&watch, rates: [1000, 1000, 1000, 20])
        #expect(verdicts.allSatisfy { $0 == .fine }, "\(verdicts)")
    }

    @Test func theWholeDownloadBelowTheLimitStillFails() {
        var watch = LowSpeedWatch(limit: 1000, seconds: 1, drops: false)
        let verdicts = LowSpeedShareTests.run(&watch, rates: [100, 100, 100, 100])
        #expect(verdicts.contains(.fail(400)), "\(verdicts)")
    }

    @Test func aWindowOfADayKeepsAFewSamples() {
        // Ticks 10 a second for a day and more: a bounded number of samples, the right average.
        var window = RateWindow(seconds: 86_400)
        for tick in 0...(90_000 * 10) { window.record(now: Double(tick) / 10, bytes: Int64(tick) * 10) }
        #expect(window.count <= RateWindow.buckets + 2, "\(window.count) samples")
        let rate = try? #require(window.rate(now: 90_000))
        #expect(rate.map { abs($0 - 100) < 1 } == true, "\(String(describing: rate))")
    }

    @Test func aSpeedLimitAtOrAboveTheRateLimitIsRefused() {
        var options = DownloadOptions()
        options.rateLimit = 10 << 10
        options.speedLimit = 100 << 10
        #expect(throws: FastgetError.self) { try options.validate() }
        options.speedLimit = 10 << 10
        #expect(throws: FastgetError.self) { try options.validate() }
        options.speedLimit = 5 << 10
        #expect(throws: Never.self) { try options.validate() }
        options.speedWindow = .seconds(86_401)
        #expect(throws: FastgetError.self) { try options.validate() }
    }
}
