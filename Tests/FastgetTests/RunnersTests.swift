@testable import Fastget
import Synchronization
import Testing

/// The kept threads a queue runs its downloads on.
@Suite struct RunnersTests {
    @Test func runsUpToItsLimitAtOnceAndKeepsItsThreads() {
        let runners = Runners(limit: 3)
        let arrived = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        // Three jobs that each wait (bounded) until all three are running: only three threads
        // at once make that possible.
        for _ in 0..<3 {
            #expect(
                runners.submit {
                    arrived.add(1, ordering: .relaxed)
                    let deadline = MonotonicClock.seconds() + 10
                    while arrived.load(ordering: .relaxed) < 3 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
                    done.add(1, ordering: .relaxed)
                })
        }
        let deadline = MonotonicClock.seconds() + 10
        while done.load(ordering: .relaxed) < 3 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
        #expect(arrived.load(ordering: .relaxed) == 3 && done.load(ordering: .relaxed) == 3)
        // Later jobs run on the kept threads, one after another or side by side.
        for _ in 0..<20 { #expect(runners.submit { done.add(1, ordering: .relaxed) }) }
        while done.load(ordering: .relaxed) < 23 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
        #expect(done.load(ordering: .relaxed) == 23)
    }
}
