@testable import Fastget
import Glibc
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
            runners.submit(
                {
                    arrived.add(1, ordering: .relaxed)
                    let deadline = MonotonicClock.seconds() + 10
                    while arrived.load(ordering: .relaxed) < 3 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
                    done.add(1, ordering: .relaxed)
                }, cannotStart: { Issue.record("no thread") })
        }
        let deadline = MonotonicClock.seconds() + 10
        while done.load(ordering: .relaxed) < 3 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
        #expect(arrived.load(ordering: .relaxed) == 3 && done.load(ordering: .relaxed) == 3)
        // Later jobs run on the kept threads, one after another or side by side.
        for _ in 0..<20 { runners.submit({ done.add(1, ordering: .relaxed) }, cannotStart: { Issue.record("no thread") }) }
        while done.load(ordering: .relaxed) < 23 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.001) }
        #expect(done.load(ordering: .relaxed) == 23)
    }

    /// Jobs submitted while threads sleep wake one each (a sleeper of its own, not a
    /// broadcast to all): from several submitting threads at once, every job runs exactly
    /// once, and no more threads than the limit are started.
    @Test func jobsFromManyThreadsEachRunOnceOnAtMostTheLimit() throws {
        let started = Atomic<Int>(0)
        let runners = Runners(limit: 4) { body throws(SystemError) in
            started.add(1, ordering: .relaxed)
            try Runners.startThread(body)
        }
        let ran = Atomic<Int>(0)
        let submitted = Atomic<Int>(0)
        for _ in 0..<4 {
            _ = try PosixThread {
                for _ in 0..<500 {
                    runners.submit({ ran.add(1, ordering: .relaxed) }, cannotStart: { Issue.record("no thread") })
                    submitted.add(1, ordering: .relaxed)
                    // Now and then all go idle before the next job.
                    if submitted.load(ordering: .relaxed) % 50 == 0 {
                        _ = Self.until { ran.load(ordering: .relaxed) >= submitted.load(ordering: .relaxed) - 3 }
                    }
                }
            }
        }
        #expect(Self.until { ran.load(ordering: .relaxed) == 2000 })
        #expect(ran.load(ordering: .relaxed) == 2000)
        #expect(started.load(ordering: .relaxed) <= 4)
    }

    /// A lost wake-up would leave a job until its sleeper's idle deadline (5 s): jobs
    /// submitted from several threads at once, in rounds that let every thread fall asleep
    /// in between, each start well within that.
    @Test func everyJobStartsBeforeAnIdleDeadline() throws {
        let runners = Runners(limit: 6)
        let ran = Atomic<Int>(0)
        for round in 1...400 {
            for _ in 0..<5 {
                _ = try PosixThread { runners.submit({ ran.add(1, ordering: .relaxed) }, cannotStart: { Issue.record("no thread") }) }
            }
            let deadline = MonotonicClock.seconds() + Runners.idleSeconds / 5
            while ran.load(ordering: .relaxed) < round * 5 && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.0002) }
            #expect(ran.load(ordering: .relaxed) == round * 5, "round \(round)")
            if ran.load(ordering: .relaxed) != round * 5 { return }
        }
    }

    /// Two jobs whose threads both fail to start, the first failure while the second thread
    /// is still being started: the first job waits for that thread, and when it fails too,
    /// both jobs are handed back (neither is left waiting for a thread that never comes).
    @Test func jobsLeftWithNoThreadAreHandedBack() throws {
        let calls = Atomic<Int>(0)
        let failures = Atomic<Int>(0) // how many spawns may fail now
        let runners = Runners(limit: 4) { _ throws(SystemError) in
            let call = calls.add(1, ordering: .relaxed).newValue
            #expect(Self.until { failures.load(ordering: .relaxed) >= call })
            throw SystemError("pthread_create", errno: EAGAIN)
        }
        let handedBack = Atomic<Int>(0)
        let returned = Atomic<Int>(0)
        for expectedCalls in 1...2 {
            _ = try PosixThread {
                runners.submit({ Issue.record("ran without a thread") }, cannotStart: { handedBack.add(1, ordering: .relaxed) })
                returned.add(1, ordering: .relaxed)
            }
            #expect(Self.until { calls.load(ordering: .relaxed) == expectedCalls })
        }
        failures.store(1, ordering: .relaxed)
        #expect(Self.until { returned.load(ordering: .relaxed) == 1 })
        #expect(handedBack.load(ordering: .relaxed) == 0, "the second thread may still take it")
        failures.store(2, ordering: .relaxed)
        #expect(Self.until { returned.load(ordering: .relaxed) == 2 })
        #expect(handedBack.load(ordering: .relaxed) == 2)
    }

    /// Polls `condition` until it holds or 10 s pass.
    private static func until(_ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.seconds() + 10
        while !condition() {
            if MonotonicClock.seconds() > deadline { return false }
            MonotonicClock.sleep(seconds: 0.001)
        }
        return true
    }
}
