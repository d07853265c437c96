#if FASTGET_FAULTS
import Synchronization

/// A test hook: writes to one output file fail with `ENOSPC` once a byte budget is spent, so
/// in-process tests can fill the disk at a chosen moment without touching other downloads.
/// Disarmed, it costs one relaxed atomic load per write. Debug builds only, like `SyscallFaults`.
package enum FaultInjection {
    private static let armed = Atomic<Bool>(false)
    private static let plan = Locked<(path: String, budget: Int64)?>(nil)

    /// Writes to `path` fail with `ENOSPC` after `bytes` more bytes.
    package static func failWrites(to path: String, after bytes: Int64) {
        plan.withLock { $0 = (path, bytes) }
        armed.store(true, ordering: .releasing)
    }

    package static func disarm() {
        armed.store(false, ordering: .releasing)
        plan.withLock { $0 = nil }
    }

    private static let failingSyncs = Locked<Set<String>>([])

    /// Every `fdatasync` and `fsync` of the output file `path` fails with `EIO` (as a lost
    /// writeback does) until `allowSyncs(of:)`.
    package static func failSyncs(of path: String) {
        _ = failingSyncs.withLock { $0.insert(path) }
    }

    package static func allowSyncs(of path: String) {
        _ = failingSyncs.withLock { $0.remove(path) }
    }

    private static let digestReaders = PathHooks()

    /// Calls `body` before every read of a digest check of `path` (a `.part` or a complete
    /// file), on the thread that checks: a test stops the download exactly mid-check.
    package static func beforeDigestReads(of path: String, _ body: (@Sendable () -> Void)?) {
        digestReaders.set(path, body)
    }

    static func willReadForDigest(_ path: String) {
        digestReaders.call(path)
    }

    private static let finalSyncs = PathHooks()

    /// Calls `body` before the sync that precedes the final rename of `path` (a `.part`), on
    /// the download's thread: a test holds a file in its sync.
    package static func beforeFinalSync(of path: String, _ body: (@Sendable () -> Void)?) {
        finalSyncs.set(path, body)
    }

    static func willSyncForRename(_ path: String) {
        finalSyncs.call(path)
    }

    private static let lockWaits = PathHooks()

    /// Calls `body` when a download starts to wait for the lock `path` that a finishing
    /// download of this process holds: a test acts on the waiting one then.
    package static func onLockWait(of path: String, _ body: (@Sendable () -> Void)?) {
        lockWaits.set(path, body)
    }

    static func willWaitForLock(_ path: String) {
        lockWaits.call(path)
    }

    private static let lockRefusals = PathHooks()

    /// Calls `body` when the lock `path` was found held, before the download asks whether a
    /// finishing download of this process holds it: a test lets that one end in between.
    package static func onLockRefused(of path: String, _ body: (@Sendable () -> Void)?) {
        lockRefusals.set(path, body)
    }

    static func lockRefused(_ path: String) {
        lockRefusals.call(path)
    }

    /// Whether a sync of the output file `path` must fail.
    static func shouldFailSync(_ path: String) -> Bool {
        failingSyncs.withLock { $0.contains(path) }
    }

    /// Whether a write of `count` bytes to `path` must fail; charges the budget otherwise.
    static func shouldFail(_ path: String, _ count: Int) -> Bool {
        guard armed.load(ordering: .relaxed) else { return false }
        return plan.withLock { plan in
            guard var current = plan, current.path == path else { return false }
            if current.budget < Int64(count) { return true }
            current.budget -= Int64(count)
            plan = current
            return false
        }
    }
}
/// Test hooks by file path: what a test set for one path, called on the thread that reaches
/// that point (outside the lock, so that a hook may wait for another download).
final class PathHooks: Sendable {
    private let hooks = Locked<[String: @Sendable () -> Void]>([:])

    func set(_ path: String, _ body: (@Sendable () -> Void)?) { hooks.withLock { $0[path] = body } }

    func call(_ path: String) { hooks.withLock { $0[path] }?() }
}
#endif
