import Fastget
import Glibc

/// What `-i` took from its list so far, and how those downloads ended. The queue lets go of a
/// download once it ended (`keepsEnded: false`) and so does this, and the list is read only
/// while fewer than `window` downloads have not ended: a list of millions holds a few dozen
/// downloads at a time. (A mutex and a condition of its own: the CLI uses only the library's
/// public interface.)
final class ListedDownloads: @unchecked Sendable {
    struct State {
        /// URL lines read (blank and comment lines not counted).
        var count = 0
        /// The first line that failed (not a download: a URL the queue refused).
        var firstFailure: Int32?
        /// Downloads added and not yet ended, with their place in the list (the first
        /// failure, in list order, gives the exit code).
        var pending: [ObjectIdentifier: (download: Download, line: Int)] = [:]
        var completed = 0
        var firstFailed: (line: Int, code: Int32)?

        /// A download of line `line` ended: completed (`code` nil) or with `code`.
        mutating func record(_ code: Int32?, line: Int) {
            guard let code else {
                completed += 1
                return
            }
            if firstFailed.map({ line < $0.line }) ?? true { firstFailed = (line, code) }
        }
    }

    let window: Int
    private var mutex = pthread_mutex_t()
    private var room = pthread_cond_t()
    /// Guarded by `mutex`.
    private var state = State()

    init(window: Int) {
        self.window = window
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&room, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&room)
        pthread_mutex_destroy(&mutex)
    }

    /// Enough to keep every slot busy: those running, as many again syncing, and more queued
    /// behind them (`-j` is at most 64, so this cannot overflow).
    static func window(jobs: Int) -> Int { 4 * jobs + 16 }

    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body(&state)
    }

    /// Returns at once while fewer than `window` downloads have not ended, else once half of
    /// them have, or `stopped()` (looked at every half second: a stop does not signal here).
    func waitForRoom(unless stopped: () -> Bool) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while state.pending.count >= window && !stopped() {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            var deadline = timespec(tv_sec: now.tv_sec, tv_nsec: now.tv_nsec + 500_000_000)
            if deadline.tv_nsec >= 1_000_000_000 { (deadline.tv_sec, deadline.tv_nsec) = (deadline.tv_sec + 1, deadline.tv_nsec - 1_000_000_000) }
            pthread_cond_timedwait(&room, &mutex, &deadline)
        }
    }

    /// A download of line `line` the queue gave (one of an earlier line, when the same URL is
    /// listed twice, is not counted again). One that ended already is counted here.
    func added(_ download: Download, line: Int) {
        let ended = withLock { state -> Bool in
            let key = ObjectIdentifier(download)
            guard state.pending[key] == nil else { return false }
            // Its end may have been told before this (a file already complete): its state is
            // final before its last event is published, so one of the two counts it.
            guard download.state.isFinal else {
                state.pending[key] = (download, line)
                return false
            }
            return true
        }
        guard ended else { return }
        // Outside the lock: the handler of its events takes it.
        let code = download.state == .completed ? nil : Batch.outcomeCode(download)
        withLock { $0.record(code, line: line) }
    }

    /// `download`'s last event, `event`, has been published.
    func ended(_ download: Download, _ event: DownloadEvent) {
        withLock { state in
            guard let entry = state.pending.removeValue(forKey: ObjectIdentifier(download)) else { return }
            // Half the window free: the reader fills it again in one go, not a line a wake.
            if state.pending.count == window / 2 { pthread_cond_broadcast(&room) }
            switch event {
            case .completed: state.record(nil, line: entry.line)
            case .failed(let error): state.record(ExitStatus.of(error), line: entry.line)
            default: state.record(ExitStatus.of(.cancelled), line: entry.line)
            }
        }
    }
}
