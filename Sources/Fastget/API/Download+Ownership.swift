/// One owner per download: whoever writes `NAME.part` and `NAME.fastget` holds the lock on
/// `NAME.fastget.lock` for as long as it does. A second download of the same destination — in
/// another process or in this one — is refused at once and touches nothing; except that one
/// of this process waits for a download that only syncs and renames the file now (a queue
/// started the next file meanwhile), since that one ends without waiting for anything.
extension Download {
    /// The lock paths held by downloads of this process that only sync and rename now.
    static let finishing = FinishingOwners()

    /// Takes the lock on `destination`'s files; throws `.cannotCreateOutput` when another
    /// download holds it (after waiting for one of this process that is finishing), or
    /// `.cancelled` when `stopped` gives a reason while it waits.
    static func own(_ destination: String, stopped: () -> String? = { nil }) throws(FastgetError) -> FileLock {
        let files = SidecarFiles(destination)
        try files.checkNameLength()
        let path = files.lock
        // A holder that was neither finishing when the lock was refused nor is now may have
        // finished and let go in between: the lock is tried once more before the refusal.
        var triedAgain = false
        while true {
            let lock: FileLock?
            do {
                lock = try FileLock.acquire(path)
            } catch let error where error.errno == Errno.fileExists || error.errno == Errno.tooManySymbolicLinkLevels {
                // A symbolic link, FIFO, device or directory there: never opened (`FileLock.acquire`).
                if let kind = FileSystem.entryKind(path), kind != .regular { throw SidecarFiles.refusal(path, kind) }
                throw FastgetError(
                    .cannotCreateOutput, "\(path) exists and is not a fastget lock; leaving it alone",
                    remedy: .moveAwayOrSaveElsewhere)
            } catch {
                throw FastgetError.local(error, path: path, creating: true)
            }
            if let lock { return lock }
            #if FASTGET_FAULTS
            FaultInjection.lockRefused(path)
            #endif
            switch Download.finishing.waitWhileHeld(path, unless: stopped) {
            case .released: continue // the finishing holder let go: try again
            case .stopped(let reason): throw FastgetError(.cancelled, reason)
            case .notFinishing where !triedAgain:
                triedAgain = true
                continue
            case .notFinishing:
                throw FastgetError(
                    .cannotCreateOutput, "another download is saving \(destination) (it holds \(path))",
                    remedy: .waitOrSaveElsewhere)
            }
        }
    }

    /// Takes the destination's lock before the first request and looks at its files once
    /// under it, for both the probe's choice (`mayOpen`) and the start point. A name the user
    /// gave that another download holds is refused before any request. Nil, and no lock, when
    /// the lock on a name from the URL cannot be had now: the run takes it after the probe, as
    /// for a name the server gives (which may be free where the URL's name is not).
    func earlyLook(_ ownership: inout FileLock?) throws(FastgetError) -> (files: SidecarFiles.Look, at: String)? {
        guard options.outputDescriptor == nil else { return nil }
        do {
            ownership = try Download.own(destination, stopped: { [control] in control.withLock { $0.stop?.reason } })
        } catch {
            if destinationGiven || error.code == .cancelled { throw error }
            return nil
        }
        let destination = self.destination
        return (SidecarFiles(destination).look(), destination)
    }

    /// The destination for `resource` (the name its `Content-Disposition` gives, when the user
    /// gave none), owned: the lock moves with the name when a new probe changes it.
    func ownDestination(for resource: RemoteResource, ownership: inout FileLock?) throws(FastgetError) -> String {
        if !destinationGiven, let name = resource.contentDisposition.flatMap(FileName.fromContentDisposition) {
            let path = options.directory == "." ? name : options.directory + "/" + name
            // The queue moves the claim first: an add meanwhile already sees the name taken.
            let (old, moved) = control.withLock { ($0.destination, $0.moved) }
            if old != path { moved?(self, old, path) }
            control.withLock { $0.destination = path }
        }
        let destination = self.destination
        if ownership?.path != SidecarFiles(destination).lock {
            ownership?.release()
            ownership = nil
            ownership = try Download.own(destination, stopped: { [control] in control.withLock { $0.stop?.reason } })
        }
        return destination
    }
}

/// Lock paths whose holders (downloads of this process) only check, sync and rename their
/// file now, counted (a path can be held, given up and held again by the next one).
final class FinishingOwners: @unchecked Sendable {
    private let monitor = Monitor()
    private var paths: [String: Int] = [:] // guarded by `monitor`

    func add(_ path: String) { monitor.locked { paths[path, default: 0] += 1 } }

    func remove(_ path: String) {
        monitor.locked {
            let left = paths[path, default: 1] - 1
            paths[path] = left > 0 ? left : nil
            monitor.broadcast()
        }
    }

    /// How a wait for a finishing holder ended.
    enum Wait {
        /// No download of this process that is finishing holds it: another does.
        case notFinishing
        /// It let go: the lock may be free now.
        case released
        /// The waiting download was stopped, for this reason.
        case stopped(String)
    }

    /// Waits while `path` is held by a finishing download, looking at `stopped` every tenth
    /// of a second.
    func waitWhileHeld(_ path: String, unless stopped: () -> String?) -> Wait {
        monitor.locked {
            guard paths[path] != nil else { return .notFinishing }
            #if FASTGET_FAULTS
            FaultInjection.willWaitForLock(path)
            #endif
            while paths[path] != nil {
                if let reason = stopped() { return .stopped(reason) }
                _ = monitor.wait(until: MonotonicClock.seconds() + 0.1)
            }
            return .released
        }
    }
}
