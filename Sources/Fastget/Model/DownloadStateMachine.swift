/// A download's state and every change of it, as a value: each transition checks what may
/// happen in the current state, changes it, and returns what the download must then do (the
/// events to tell, a run to stop, files to remove, a thread to start). It holds no lock, no
/// thread and no file, so its rules are tested without a server; `Download` keeps it under its
/// lock and carries the actions out.
///
/// Only the transitions `DownloadState` documents happen (`DownloadState.canChange`); a call
/// that does not apply changes nothing.
struct DownloadStateMachine: Sendable {
    /// A stop asked for by `pause`, `cancel` or `cancelAndDelete`.
    enum StopRequest: Sendable {
        case pause, cancel, cancelAndDelete

        /// What a run stopped by it throws.
        var reason: String { self == .pause ? "download paused" : "download cancelled" }

        /// Which of two stops asked for during one run holds: the higher.
        var strength: Int {
            switch self {
            case .pause: 0
            case .cancel: 1
            case .cancelAndDelete: 2
            }
        }
    }

    private(set) var state: DownloadState
    /// The stop asked for while a run is active; the run polls it and its end reads it.
    private(set) var stop: StopRequest?
    /// How the download ended, once its state is final.
    private(set) var outcome: Result<DownloadReport, FastgetError>?
    /// How many times the state changed: what a start that found no thread compares
    /// (`failUnstarted`).
    private(set) var changes = 0

    /// `state` is `.paused` for a download a queue restores from its journal.
    init(state: DownloadState = .queued) { self.state = state }

    /// What a run about to begin on the caller's thread does.
    enum Begin {
        /// Run: the state is `probing` now; `events` tell it (and a resume before it).
        case run(events: [DownloadEvent])
        /// It ended already: the run returns this again.
        case ended(Result<DownloadReport, FastgetError>)
        /// Another run has it (`state`); `events` still go out.
        case busy(DownloadState, events: [DownloadEvent])
    }

    /// A run starts (`run()`, or the thread `start()` launched): from `queued`, or from
    /// `paused` when `resumingPaused` (a `run()` call resumes; a started thread that finds its
    /// download paused meanwhile leaves it paused).
    mutating func begin(resumingPaused: Bool) -> Begin {
        if let outcome { return .ended(outcome) }
        var events: [DownloadEvent] = []
        if resumingPaused, state == .paused, change(to: .queued) { events.append(.stateChanged(.queued)) }
        guard state == .queued else { return .busy(state, events: events) }
        stop = nil
        _ = change(to: .probing)
        return .run(events: events + [.stateChanged(.probing)])
    }

    /// `start()`: whether to launch a thread for a run (from `queued`, or `paused`, which it
    /// resumes), and the events to tell.
    mutating func start() -> (launch: Bool, events: [DownloadEvent]) {
        if state == .paused, change(to: .queued) { return (true, [.stateChanged(.queued)]) }
        return (state == .queued, [])
    }

    /// `resume()`: the events of going from `paused` back to `queued`; nil in any other state.
    mutating func resume() -> [DownloadEvent]? {
        guard state == .paused, change(to: .queued) else { return nil }
        return [.stateChanged(.queued)]
    }

    /// What a stop asked for does.
    enum StopAction {
        /// Nothing: the download has ended, or a pause meets a paused one.
        case none
        /// A run is active: stop it; its end decides the state.
        case stopRun(StopRequest)
        /// Nothing runs: the state changed at once. `removingFiles`: the `.part` and journal go,
        /// before any observer is told.
        case changed(events: [DownloadEvent], removingFiles: Bool)
    }

    /// `pause()`, `cancel()` or `cancelAndDelete()`. During a run the strongest stop asked for
    /// holds: a cancel overrides a pause, a cancel-and-delete both, and neither is undone by a
    /// weaker one asked for later.
    mutating func requestStop(_ request: StopRequest) -> StopAction {
        if state.isActive {
            if (stop?.strength ?? -1) < request.strength { stop = request }
            return .stopRun(stop ?? request)
        }
        switch (state, request) {
        case (.queued, .pause):
            guard change(to: .paused) else { return .none }
            return .changed(events: [.stateChanged(.paused)], removingFiles: false)
        case (.queued, _), (.paused, .cancel), (.paused, .cancelAndDelete):
            guard change(to: .cancelled) else { return .none }
            outcome = .failure(FastgetError(.cancelled, "download cancelled"))
            return .changed(events: [.stateChanged(.cancelled), .cancelled], removingFiles: request == .cancelAndDelete)
        default:
            return .none
        }
    }

    /// The run moved on (`downloading`, or back to `probing` to start over): its events, none
    /// when the change is not allowed.
    mutating func advance(to next: DownloadState) -> [DownloadEvent] {
        change(to: next) ? [.stateChanged(next)] : []
    }

    /// The state a run's `result` leads to, and whether the files go first (a cancel-and-delete
    /// that stopped it). Decided before the files go; `end` then makes the change.
    func ending(_ result: Result<DownloadReport, FastgetError>) -> (next: DownloadState, removingFiles: Bool) {
        let next: DownloadState =
            switch (result, stop) {
            case (.success, _): .completed
            case (.failure(let error), .pause) where error.code == .cancelled: .paused
            case (.failure(let error), .cancel), (.failure(let error), .cancelAndDelete): error.code == .cancelled ? .cancelled : .failed
            case (.failure, _): .failed
            }
        return (next, next == .cancelled && stop == .cancelAndDelete)
    }

    /// The run ended with `result` in `next` (from `ending`): the stop is done with, a final
    /// state keeps the outcome, and the events say so (none when the change is not allowed).
    mutating func end(_ result: Result<DownloadReport, FastgetError>, in next: DownloadState) -> [DownloadEvent] {
        stop = nil
        guard change(to: next) else { return [] }
        if next.isFinal { outcome = result }
        var events: [DownloadEvent] = [.stateChanged(next)]
        switch (next, result) {
        case (.completed, .success(let report)): events.append(.completed(report))
        case (.failed, .failure(let error)): events.append(.failed(error))
        case (.cancelled, _): events.append(.cancelled)
        default: break
        }
        return events
    }

    private mutating func change(to next: DownloadState) -> Bool {
        guard state.canChange(to: next) else { return false }
        state = next
        changes += 1
        return true
    }

    /// No thread could be started for the run `start` asked for when `changes` was `since`:
    /// the download fails, unless it changed meanwhile (paused, resumed, cancelled, or run on
    /// the caller's thread), when that start is no longer its. The events tell it (none then).
    mutating func failUnstarted(_ error: FastgetError, since: Int) -> [DownloadEvent] {
        guard state == .queued, changes == since else { return [] }
        return end(.failure(error), in: .failed)
    }
}
