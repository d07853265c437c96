@testable import Fastget
import Testing

/// Which workers end when an automatic count goes down.
@Suite struct WorkerCrewTests {
    @Test func addedWorkersWhoseResponseWasCutRetireFirstThenTheNewest() {
        // 1 → 4 → 1: the first thief's answer was cut by a later steal; it goes first, then the
        // newest. The first worker (not expendable: it retries) always stays.
        let workers = [
            (id: 0, expendable: false, cut: true), (id: 1, expendable: true, cut: true), (id: 2, expendable: true, cut: false),
            (id: 3, expendable: true, cut: false),
        ]
        #expect(Set(WorkerCrew.retiring(workers, keeping: 1)) == [1, 2, 3])
        #expect(Set(WorkerCrew.retiring(workers, keeping: 2)) == [1, 3])
        #expect(WorkerCrew.retiring(workers, keeping: 3) == [1])
        // None cut: the newest go, as before.
        let clean = (0..<4).map { (id: $0, expendable: $0 > 0, cut: false) }
        #expect(WorkerCrew.retiring(clean, keeping: 2).sorted() == [2, 3])
        #expect(WorkerCrew.retiring(clean, keeping: 4).isEmpty && WorkerCrew.retiring(clean, keeping: 9).isEmpty)
        #expect(WorkerCrew.retiring(clean, keeping: 0).sorted() == [1, 2, 3])
    }
}
