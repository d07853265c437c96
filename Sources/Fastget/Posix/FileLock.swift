internal import Glibc
internal import CLinux

/// An exclusive advisory lock on a file of its own (`flock`), held until `release` or until the
/// process dies — the kernel drops it then, so a crash never leaves a stale lock behind.
///
/// `flock` locks belong to the open file description: two opens in one process exclude each
/// other just as two processes do.
package final class FileLock: @unchecked Sendable {
    package let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Takes the lock at `path`, creating the file. Returns nil at once when another holder has it.
    ///
    /// A holder removes the file when it releases: whoever opened it before the removal locks a
    /// file that is no longer at `path`, notices (its inode is not the path's) and tries again.
    /// The corresponding C functions are `open`, `flock`, `fstat` and `stat`.
    package static func acquire(_ path: String) throws(SystemError) -> FileLock? {
        for _ in 0..<8 {
            guard let opened = try open(path) else { continue } // removed between two opens
            let fd = opened.descriptor
            #if FASTGET_FAULTS
            if opened.created { FileLock.createdHooks.withLock { $0[path] }?() }
            #endif
            // A lock file is empty and regular. Anything else at that path is somebody's file
            // (a download named `x.fastget.lock`, a FIFO): never lock it, or remove it on release.
            var held = stat()
            guard fstat(fd, &held) == 0, (held.st_mode & S_IFMT) == S_IFREG, held.st_size == 0 else {
                Glibc.close(fd)
                throw SystemError("open", errno: EEXIST)
            }
            do {
                _ = try retryingOnInterrupt("flock") { flock(fd, LOCK_EX | LOCK_NB) }
            } catch {
                Glibc.close(fd)
                if error.errno == EWOULDBLOCK { return nil }
                throw error
            }
            var named = stat()
            faultCountLookup()
            if stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                return FileLock(path: path, descriptor: fd)
            }
            Glibc.close(fd) // the previous holder removed it meanwhile
        }
        throw SystemError("flock", errno: EAGAIN)
    }

    /// The lock file at `path` and whether this call created it: created anew, or the one
    /// there opened without following a link and without waiting (a FIFO or device there must
    /// not block the start); nil when it went between the two attempts. Only a regular file
    /// there is opened at all: anything else (a device, whose open may act, a directory, a
    /// link) throws `EEXIST` untouched. The look comes only when the creation failed: a free
    /// name (every file of a list) costs no lookup. A file this call created is checked like
    /// any other once locked: another may have opened it, locked it first and let go
    /// (removing it) before this call's `flock`, and only the path tells whether the file
    /// locked is still the one there (a hard link elsewhere keeps its link count).
    private static func open(_ path: String) throws(SystemError) -> (descriptor: Int32, created: Bool)? {
        let created = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0o644)
        if created >= 0 { return (created, true) }
        guard errno == EEXIST || errno == EINTR else { throw SystemError("open") }
        var there = stat()
        faultCountLookup()
        if lstat(path, &there) == 0, (there.st_mode & S_IFMT) != S_IFREG { throw SystemError("open", errno: EEXIST) }
        do {
            let fd = try retryingOnInterrupt("open") { Glibc.open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            return (fd, false)
        } catch let error where error.errno == ENOENT {
            return nil
        }
    }

    #if FASTGET_FAULTS
    private static let createdHooks = Locked<[String: @Sendable () -> Void]>([:])

    /// Calls `body` when `acquire` has created the lock file `path`, before its `flock`: a
    /// test lets another holder take that file and let go in between.
    package static func afterCreating(_ path: String, _ body: (@Sendable () -> Void)?) {
        createdHooks.withLock { $0[path] = body }
    }
    #endif

    /// Removes the lock file, then drops the lock (in that order: nobody can lock the removed
    /// file and believe it is the one at `path`).
    package func release() {
        guard descriptor >= 0 else { return }
        faultCountUnlink()
        unlink(path)
        Glibc.close(descriptor)
        descriptor = -1
    }
}
