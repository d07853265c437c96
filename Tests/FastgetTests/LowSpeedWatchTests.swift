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
