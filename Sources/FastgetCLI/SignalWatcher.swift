import Fastget
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into a pause (of the download, or of every download of `-i`): the
/// first signal stops the workers and takes
/// a last checkpoint (the run then ends with exit 130); a second one exits at once, which is
/// still safe because the last checkpoint on disk is true.
///
/// The signals are blocked in every thread (workers inherit the mask) and taken by one thread
/// with `sigwait`, so no Swift code runs in a signal handler.
enum SignalWatcher {
    /// Call before any other thread starts.
    static func blockSignals() {
        var signals = watched
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Whether the first signal was `--max-time`'s alarm rather than the user's.
    static let timedOut = Atomic<Bool>(false)

    /// `--max-time`: SIGALRM after `seconds` (a pause, as Ctrl-C, but told apart by `timedOut`).
    static func arm(after seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        let whole = min(seconds.rounded(.down), Double(Int32.max))
        var timer = itimerval()
        timer.it_value.tv_sec = Int(whole)
        timer.it_value.tv_usec = Int((seconds - whole) * 1_000_000)
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    }

    /// Starts the watching thread; `pause` runs on it at the first signal.
    static func watch(_ pause: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Action(pause)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let action = Unmanaged<Action>.fromOpaque(argument!).takeRetainedValue()
                var signals = SignalWatcher.watched
                var received: Int32 = 0
                sigwait(&signals, &received)
                if received == SIGALRM { SignalWatcher.timedOut.store(true, ordering: .sequentiallyConsistent) }
                action.body()
                sigwait(&signals, &received)
                Console.write("\nfastget: interrupted again; exiting now (the last checkpoint stays valid)\n")
                _exit(ExitStatus.of(.cancelled))
            }, box)
        if result == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Action>.fromOpaque(box).release()
        }
    }

    private final class Action {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private static var watched: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGALRM)
        return signals
    }
}
