/// One owner per download: whoever writes `NAME.part` and `NAME.fastget` holds the lock on
/// `NAME.fastget.lock` for as long as it does. A second download of the same destination — in
/// another process or in this one — is refused at once and touches nothing; except that one
/// of this process waits for a download that only syncs and renames the file now (a queue
/// started the next file meanwhile), since that one ends without waiting for anything.
extension Download {
    /// The lock paths held by downloads of this process that only sync and rename now.
    static let finishing = FinishingOwners()

    /// Takes the lock on `destination`'s files; throws `.cannotCreateOutput` when another
    /// download holds it (after waiting, unless `stopped`, for one of this process that is
    /// finishing).
    static func own(_ destination: String, stopped: () -> Bool = { false }) throws(FastgetError) -> FileLock {
        let files = SidecarFiles(destination)
        try files.checkNameLength()
        let path = files.lock
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
        guard let lock else {
            if Download.finishing.waitWhileHeld(path, unless: stopped) { return try own(destination, stopped: stopped) }
            throw FastgetError(
                .cannotCreateOutput, "another download is saving \(destination) (it holds \(path))",
                remedy: .waitOrSaveElsewhere)
        }
        return lock
    }

    /// Takes the destination's lock before the first request and looks at its files once
    /// under it, for both the probe's choice (`mayOpen`) and the start point. A name the user
    /// gave that another download holds is refused before any request. Nil, and no lock, when
    /// the lock on a name from the URL cannot be had now: the run takes it after the probe, as
    /// for a name the server gives (which may be free where the URL's name is not).
    func earlyLook(_ ownership: inout FileLock?) throws(FastgetError) -> (files: SidecarFiles.Look, at: String)? {
        guard options.outputDescriptor == nil else { return nil }
        do {
            ownership = try Download.own(destination)
        } catch {
            if destinationGiven { throw error }
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
            let (old, moved) = control.withLock { control in
                defer { control.destination = path }
                return (control.destination, control.moved)
            }
            if old != path { moved?(self, old, path) }
        }
        let destination = self.destination
        if ownership?.path != SidecarFiles(destination).lock {
            ownership?.release()
            ownership = nil
            ownership = try Download.own(destination, stopped: { [control] in control.withLock { $0.stop } != nil })
        }
        return destination
    }
}

/// Lock paths whose holders (downloads of this process) only sync and rename their file now.
final class FinishingOwners: @unchecked Sendable {
    private let monitor = Monitor()
    private var paths: Set<String> = [] // guarded by `monitor`

    func add(_ path: String) { monitor.locked { _ = paths.insert(path) } }

    func remove(_ path: String) {
        monitor.locked {
            paths.remove(path)
            monitor.broadcast()
        }
    }

    /// Waits while `path` is held by a finishing download, looking at `stopped` every tenth
    /// of a second; returns whether it was held (so the caller tries the lock again).
    func waitWhileHeld(_ path: String, unless stopped: () -> Bool) -> Bool {
        monitor.locked {
            guard paths.contains(path) else { return false }
            while paths.contains(path) && !stopped() { _ = monitor.wait(until: MonotonicClock.seconds() + 0.1) }
            return true
        }
    }
}
