@testable import Fastget
import Testing

/// Which workers end when an automatic count goes down.
@Suite struct WorkerCrewTests {
    typealias Candidate = WorkerCrew.Candidate

    @Test func workersWhoseResponseWasCutRetireFirstThenTheNewest() {
        // 1 → 4 → 1: the first worker's answer and the first thief's were cut by later steals;
        // they go first, then the newest. The first worker (primary: it retries) passes its role
        // to an uncut one that stays, whose connection carries on to the ranges handed back.
        let workers = [
            Candidate(id: 0, expendable: false, cut: true), Candidate(id: 1, expendable: true, cut: true),
            Candidate(id: 2, expendable: true, cut: false), Candidate(id: 3, expendable: true, cut: false),
        ]
        let one = WorkerCrew.retiring(workers, keeping: 1)
        #expect(Set(one.retire) == [0, 1, 3] && one.heir == 2)
        let two = WorkerCrew.retiring(workers, keeping: 2)
        #expect(Set(two.retire) == [0, 1] && two.heir == 2)
        let three = WorkerCrew.retiring(workers, keeping: 3)
        #expect(three.retire == [1] && three.heir == nil)
        // None cut: the newest go, and the primary stays.
        let clean = (0..<4).map { Candidate(id: $0, expendable: $0 > 0, cut: false) }
        #expect(WorkerCrew.retiring(clean, keeping: 2).retire.sorted() == [2, 3])
        #expect(WorkerCrew.retiring(clean, keeping: 4).retire.isEmpty && WorkerCrew.retiring(clean, keeping: 9).retire.isEmpty)
        #expect(WorkerCrew.retiring(clean, keeping: 0) == ([3, 2, 1], nil))
    }

    @Test func aCutPrimaryStaysUnlessAWorkerThatStaysIsUncutAndReading() {
        // Only an uncut heir keeps its connection; a cut one would reconnect like the primary.
        let allCut = (0..<3).map { Candidate(id: $0, expendable: $0 > 0, cut: true) }
        let one = WorkerCrew.retiring(allCut, keeping: 1)
        #expect(Set(one.retire) == [1, 2] && one.heir == nil)
        // A primary promoted earlier has a higher id than a cut worker that would stay: it
        // stays, and that one goes in its place.
        let promoted = [Candidate(id: 1, expendable: true, cut: true), Candidate(id: 5, expendable: false, cut: true)]
        #expect(WorkerCrew.retiring(promoted, keeping: 1) == ([1], nil))
        // An uncut worker still waiting for its answer (a server may hold it without end) is no
        // heir: the primary, which reads, stays, and the waiting one goes.
        let waiting = [
            Candidate(id: 0, expendable: false, cut: true), Candidate(id: 1, expendable: true, cut: false, streaming: false),
        ]
        #expect(WorkerCrew.retiring(waiting, keeping: 1) == ([1], nil))
    }
}
