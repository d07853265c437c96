@testable import Fastget
import Testing

/// The download's state rules as a value, without a server, a thread or a file: what each call
/// does in each state, and that no sequence of calls makes a change `DownloadState` does not
/// document.
@Suite struct DownloadStateMachineTests {
    typealias Machine = DownloadStateMachine

    static let report = DownloadReport(
        path: "/d/f", bytes: 1, seconds: 0, workers: 1, steals: 0, hedges: 0, hedgesLost: 0, connections: 1,
        fullHandshakes: 0, resumedHandshakes: 0, retries: 0, resumedBytes: 0,
        resource: RemoteResource(
            url: try! HTTPURL("http://h/f"), length: 1, acceptsRanges: true, etag: nil, lastModified: nil, contentDisposition: nil))
    static let paused = Result<DownloadReport, FastgetError>.failure(FastgetError(.cancelled, "download paused"))
    static let broken = Result<DownloadReport, FastgetError>.failure(FastgetError(.temporary, "connection reset"))

    /// The states the events announce, in order.
    static func states(_ events: [DownloadEvent]) -> [DownloadState] {
        events.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
    }

    /// A machine in `state`, reached through the calls a download makes.
    static func machine(in state: DownloadState) -> Machine {
        var machine = Machine()
        func run() { _ = machine.begin(resumingPaused: false) }
        switch state {
        case .queued: break
        case .probing: run()
        case .downloading: run(); _ = machine.advance(to: .downloading)
        case .paused: _ = machine.requestStop(.pause)
        case .completed: run(); _ = machine.end(.success(report), in: .completed)
        case .failed: run(); _ = machine.end(broken, in: .failed)
        case .cancelled: _ = machine.requestStop(.cancel)
        }
        #expect(machine.state == state)
        return machine
    }

    /// A start that finds no thread fails the download it was asked for, and only that: not
    /// one paused and resumed since, nor one run on the caller's thread meanwhile.
    @Test func aStartWithNoThreadFailsOnlyTheRunItWasFor() throws {
        let noThread = FastgetError(.localIO, "cannot start a download thread: no thread could be started")
        var fresh = Machine()
        _ = fresh.start()
        let since = fresh.changes
        #expect(Self.states(fresh.failUnstarted(noThread, since: since)) == [.failed])
        #expect(fresh.state == .failed && fresh.outcome.map { (try? $0.get()) == nil } == true)

        var requeued = Machine()
        _ = requeued.start()
        let before = requeued.changes
        _ = requeued.requestStop(.pause)
        _ = requeued.start() // resumed: queued again, for a start of its own
        #expect(requeued.state == .queued)
        #expect(requeued.failUnstarted(noThread, since: before).isEmpty && requeued.state == .queued)

        var ran = Machine()
        _ = ran.start()
        let launched = ran.changes
        _ = ran.begin(resumingPaused: false)
        #expect(ran.failUnstarted(noThread, since: launched).isEmpty && ran.state == .probing)
    }

    @Test func aRunBeginsFromQueuedAndAPausedOneOnlyWhenResumed() {
        var queued = Self.machine(in: .queued)
        guard case .run(let events) = queued.begin(resumingPaused: false) else { Issue.record("no run"); return }
        #expect(Self.states(events) == [.probing] && queued.state == .probing)

        var paused = Self.machine(in: .paused)
        guard case .busy(.paused, let none) = paused.begin(resumingPaused: false), none.isEmpty else { Issue.record("ran"); return }
        guard case .run(let resumed) = paused.begin(resumingPaused: true) else { Issue.record("no run"); return }
        #expect(Self.states(resumed) == [.queued, .probing])

        var running = Self.machine(in: .downloading)
        guard case .busy(.downloading, _) = running.begin(resumingPaused: true) else { Issue.record("ran twice"); return }

        var done = Self.machine(in: .completed)
        guard case .ended(.success(let report)) = done.begin(resumingPaused: true) else { Issue.record("ran again"); return }
        #expect(report.path == "/d/f")
    }

    @Test func startLaunchesFromQueuedOrPausedOnly() {
        for state in DownloadState.allCases {
            var machine = Self.machine(in: state)
            let (launch, events) = machine.start()
            #expect(launch == (state == .queued || state == .paused), "\(state)")
            #expect(Self.states(events) == (state == .paused ? [.queued] : []), "\(state)")
            var again = Self.machine(in: state)
            #expect((again.resume() != nil) == (state == .paused), "\(state)")
        }
    }

    @Test func aStopDuringARunIsForTheRunToObeyAndACancelWins() {
        var machine = Self.machine(in: .downloading)
        guard case .stopRun(.pause) = machine.requestStop(.pause) else { Issue.record("not stopped"); return }
        guard case .stopRun(.cancel) = machine.requestStop(.cancel) else { Issue.record("not stopped"); return }
        guard case .stopRun(.cancel) = machine.requestStop(.pause) else { Issue.record("a pause undid the cancel"); return }
        #expect(machine.stop == .cancel && machine.state == .downloading)
        // A cancel-and-delete overrides the cancel, and a later plain cancel does not undo it.
        guard case .stopRun(.cancelAndDelete) = machine.requestStop(.cancelAndDelete) else { Issue.record("not deleting"); return }
        guard case .stopRun(.cancelAndDelete) = machine.requestStop(.cancel) else { Issue.record("the delete was undone"); return }
        #expect(machine.ending(Self.paused).removingFiles)
        var plain = Self.machine(in: .downloading)
        _ = plain.requestStop(.cancel)
        // The run stopped: a cancelled run ends cancelled, keeping its files.
        let (next, removing) = plain.ending(Self.paused)
        #expect(next == .cancelled && !removing)
        #expect(Self.states(plain.end(Self.paused, in: next)) == [.cancelled] && plain.stop == nil)
        #expect(plain.outcome != nil)
    }

    @Test func aStopWithNothingRunningChangesTheStateAtOnce() {
        var queued = Self.machine(in: .queued)
        guard case .changed(let events, false) = queued.requestStop(.pause) else { Issue.record("not paused"); return }
        #expect(Self.states(events) == [.paused] && queued.outcome == nil)
        guard case .none = queued.requestStop(.pause) else { Issue.record("paused twice"); return }
        guard case .changed(let cancelled, true) = queued.requestStop(.cancelAndDelete) else { Issue.record("not deleted"); return }
        #expect(Self.states(cancelled) == [.cancelled])
        if case .failure(let error)? = queued.outcome { #expect(error.code == .cancelled) } else { Issue.record("no outcome") }
        for state in [DownloadState.completed, .failed, .cancelled] {
            for request in [Machine.StopRequest.pause, .cancel, .cancelAndDelete] {
                var ended = Self.machine(in: state)
                guard case .none = ended.requestStop(request) else { Issue.record("\(state) changed by \(request)"); continue }
            }
        }
    }

    /// How a run's result and the stop asked for decide its end.
    @Test(arguments: [
        (Machine.StopRequest?.none, "success", DownloadState.completed, false),
        (.pause, "success", .completed, false), // finished before the pause took
        (.none, "paused", .failed, false), // a cancellation no one asked for is a failure
        (.pause, "paused", .paused, false), (.pause, "broken", .failed, false),
        (.cancel, "paused", .cancelled, false), (.cancel, "broken", .failed, false),
        (.cancelAndDelete, "paused", .cancelled, true), (.cancelAndDelete, "broken", .failed, false),
    ])
    func aRunEndsInTheStateItsResultAndStopDecide(stop: Machine.StopRequest?, result: String, next: DownloadState, removing: Bool) {
        var machine = Self.machine(in: .downloading)
        if let stop { _ = machine.requestStop(stop) }
        let outcome = result == "success" ? .success(Self.report) : result == "paused" ? Self.paused : Self.broken
        let ending = machine.ending(outcome)
        #expect(ending.next == next && ending.removingFiles == removing)
        let events = machine.end(outcome, in: ending.next)
        #expect(Self.states(events) == [next] && machine.state == next)
        #expect((machine.outcome != nil) == next.isFinal)
        #expect(events.count == (next == .paused ? 1 : 2)) // a final state has its final event
    }

    /// Thousands of calls in random order, from a fixed seed: every change of state is one the
    /// diagram has, every change is announced by exactly one event, and nothing else is.
    @Test func noSequenceOfCallsMakesAnUndocumentedChange() {
        var random = SplitMix64(state: 0x5EED) // SegmentPlanTests' generator: the same walk on every run
        for _ in 0..<300 {
            var machine = Machine()
            for _ in 0..<30 {
                let before = machine.state
                var events: [DownloadEvent] = []
                switch random.next() % 9 {
                case 0:
                    switch machine.begin(resumingPaused: random.next() % 2 == 0) {
                    case .run(let told), .busy(_, let told): events = told
                    case .ended: break
                    }
                case 1: events = machine.start().events
                case 2: events = machine.resume() ?? []
                case 3, 4:
                    let request = [Machine.StopRequest.pause, .cancel, .cancelAndDelete][Int(random.next() % 3)]
                    if case .changed(let told, _) = machine.requestStop(request) { events = told }
                case 5: events = machine.advance(to: DownloadState.allCases[Int(random.next() % 7)])
                default:
                    guard machine.state.isActive else { continue }
                    let outcome = [.success(Self.report), Self.paused, Self.broken][Int(random.next() % 3)]
                    events = machine.end(outcome, in: machine.ending(outcome).next)
                }
                let told = Self.states(events)
                var path = before
                for state in told {
                    #expect(path.canChange(to: state), "\(path) → \(state)")
                    path = state
                }
                #expect(path == machine.state, "\(before) → \(machine.state), told \(told)")
                if before.isFinal { #expect(machine.state == before) }
            }
        }
    }
}
