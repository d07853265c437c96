internal import Glibc
internal import CLinux

/// An open file, positioned I/O only. Owned: closed on deinit unless closed explicitly.
package final class FileDescriptor: @unchecked Sendable {
    package let descriptor: Int32
    private var isClosed = false

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { if !isClosed { Glibc.close(descriptor) } }

    /// Creates the file at `path`, which must not exist: anything there, a symbolic link too
    /// (dangling or not), fails with `EEXIST` and is left as it was. Mode `permissions`
    /// (less the umask). The corresponding C function is `open` with `O_CREAT | O_EXCL | O_NOFOLLOW`.
    package static func createNew(_ path: String, permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        let flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC
        return FileDescriptor(descriptor: try retryingOnInterrupt("open") { Glibc.open(path, flags, mode_t(permissions)) })
    }

    /// Opens the existing regular file at `path`, for reading and writing unless `readOnly`.
    /// Never through a symbolic link (`ELOOP`), and never waiting: a FIFO or device is opened
    /// without blocking (`O_NONBLOCK`), seen by `fstat` to be no regular file, and closed
    /// unread and unwritten (`EEXIST`: something that is not the file asked for is there).
    package static func openRegular(_ path: String, readOnly: Bool = false) throws(SystemError) -> FileDescriptor {
        let flags = (readOnly ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        let file = FileDescriptor(descriptor: try retryingOnInterrupt("open") { Glibc.open(path, flags) })
        var info = stat()
        _ = try retryingOnInterrupt("fstat") { fstat(file.descriptor, &info) }
        guard FileSystem.kind(mode: info.st_mode) == .regular else {
            try? file.close()
            throw SystemError("open", errno: EEXIST)
        }
        // O_NONBLOCK means nothing for a regular file's reads and writes; cleared all the same,
        // so that the descriptor behaves as any other.
        _ = fcntl(file.descriptor, F_SETFL, fcntl(file.descriptor, F_GETFL) & ~O_NONBLOCK)
        return file
    }

    /// Opens an existing character device or FIFO for writing only: never created, never
    /// truncated. A FIFO without a reader yet is tried again after each `wait()`, until one
    /// opens it or `wait()` returns true (a stop: then nil). What was opened is checked again
    /// by its descriptor: a regular file put in the path's place meanwhile is refused (`EEXIST`),
    /// never written over. Writes block as usual once it is open.
    package static func openForStreaming(_ path: String, wait: () -> Bool) throws(SystemError) -> FileDescriptor? {
        while true {
            let fd = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            if fd >= 0 {
                let file = FileDescriptor(descriptor: fd)
                var info = stat()
                let kind = fstat(fd, &info) == 0 ? FileSystem.kind(mode: info.st_mode) : nil
                guard kind == .characterDevice || kind == .fifo else {
                    try? file.close()
                    throw SystemError("open", errno: EEXIST)
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return file
            }
            let code = errno
            if code == EINTR { continue }
            // ENXIO: a FIFO without a reader, worth waiting for; anything else (a socket, a
            // terminal device with no terminal) stays that way.
            guard code == ENXIO, FileSystem.kind(path) == .fifo else { throw SystemError("open", errno: code) }
            if wait() { return nil }
        }
    }

    /// Opens an existing file for reading only.
    package static func openReadOnly(_ path: String) throws(SystemError) -> FileDescriptor {
        let fd = try retryingOnInterrupt("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        return FileDescriptor(descriptor: fd)
    }

    /// Opens a directory so that it can be synced after a rename.
    package static func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor {
        let fd = try retryingOnInterrupt("open") { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return FileDescriptor(descriptor: fd)
    }

    /// Writes all of `bytes` at `offset`, continuing after short writes.
    /// The corresponding C function is `pwrite`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        try writeAll(bytes) { (remaining, written) throws(SystemError) in
            try writeStep("pwrite", remaining) { pwrite(descriptor, $0, $1, off_t(offset) + off_t(written)) }
        }
    }

    /// Writes all of `bytes` to `descriptor`, one the caller owns (a stream's output, such as
    /// standard output), at its current position, continuing after short writes.
    /// The corresponding C function is `write`.
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemError) {
        try writeAll(bytes) { (remaining, _) throws(SystemError) in
            try writeStep("write", remaining) { Glibc.write(descriptor, $0, $1) }
        }
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Reads up to `buffer.count` bytes at `offset`. The corresponding C function is `pread`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        try retryingOnInterrupt("pread") { pread(descriptor, buffer.baseAddress, faultShortened(buffer.count, "pread"), off_t(offset)) }
    }

    /// Sets the length; extending leaves a hole (a sparse file). The corresponding C function is `ftruncate`.
    package func setLength(_ length: Int64) throws(SystemError) {
        _ = try retryingOnInterrupt("ftruncate") { ftruncate(descriptor, off_t(length)) }
    }

    /// Reserves blocks for `[offset, offset + length)` so that the download cannot run out of
    /// space half-way. Returns false when the file system cannot preallocate (`EOPNOTSUPP`);
    /// `ENOSPC` throws. The corresponding C function is `fallocate`.
    package func preallocate(_ length: Int64, from offset: Int64 = 0) throws(SystemError) -> Bool {
        guard length > 0 else { return true }
        faultCountFallocate()
        while true {
            if fastget_fallocate(descriptor, off_t(offset), off_t(length)) == 0 { return true }
            switch errno {
            case EINTR: continue
            case EOPNOTSUPP, ENOSYS: return false
            default: throw SystemError("fallocate")
            }
        }
    }

    /// Starts writing `[offset, offset + length)` back to the device without waiting, so that a
    /// later `fsync` has little left to do. Best effort: errors surface at `fsync`.
    /// The corresponding C function is `sync_file_range` with `SYNC_FILE_RANGE_WRITE`.
    package func startWriteback(offset: Int64, length: Int64) {
        _ = fastget_start_writeback(descriptor, off_t(offset), off_t(length))
    }

    /// The current size in bytes. The corresponding C function is `fstat`.
    package func size() throws(SystemError) -> Int64 {
        var info = stat()
        _ = try retryingOnInterrupt("fstat") { fstat(descriptor, &info) }
        return Int64(info.st_size)
    }

    /// What `fstat` says of the open file. The corresponding C function is `fstat`.
    package func status() throws(SystemError) -> FileSystem.Status {
        var info = stat()
        _ = try retryingOnInterrupt("fstat") { fstat(descriptor, &info) }
        return FileSystem.Status(info)
    }

    /// The last modification time, `seconds.nanoseconds`. The corresponding C function is `fstat`.
    package func modificationTime() throws(SystemError) -> String {
        var info = stat()
        _ = try retryingOnInterrupt("fstat") { fstat(descriptor, &info) }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Sets the extended attribute `name` (e.g. `user.xdg.origin.url`); false where the file
    /// system has none. The corresponding C function is `fsetxattr`.
    @discardableResult
    package func setAttribute(_ name: String, _ value: String) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, $0.count, 0) } == 0
    }

    /// Removes the extended attribute `name`, if the file has it. The corresponding C function
    /// is `fremovexattr`.
    package func removeAttribute(_ name: String) {
        _ = fremovexattr(descriptor, name)
    }

    /// Flushes the data (not necessarily the metadata). The corresponding C function is `fdatasync`.
    package func syncData() throws(SystemError) {
        _ = try retryingOnInterrupt("fdatasync") { fdatasync(descriptor) }
    }

    /// Flushes data and metadata. The corresponding C function is `fsync`.
    package func sync() throws(SystemError) {
        _ = try retryingOnInterrupt("fsync") { fsync(descriptor) }
    }

    /// Closes now, reporting the error `close` returns (deferred write errors surface here).
    package func close() throws(SystemError) {
        guard !isClosed else { return }
        isClosed = true
        if Glibc.close(descriptor) != 0 && errno != EINTR { throw SystemError("close") }
    }
}
