internal import Glibc
internal import CLinux

/// An open file, positioned I/O only. Owned: closed on deinit unless closed explicitly.
package final class FileHandle: @unchecked Sendable {
    package let descriptor: Int32
    private var isClosed = false

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { if !isClosed { Glibc.close(descriptor) } }

    /// Opens `path` for reading and writing, creating it with mode 0644 when `create` is set,
    /// emptying it when `truncate` is set. The corresponding C function is `open`.
    package static func open(_ path: String, create: Bool, truncate: Bool) throws(SystemError) -> FileHandle {
        var flags = O_RDWR | O_CLOEXEC
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        let fd = try retryingOnInterrupt("open") { Glibc.open(path, flags, 0o644) }
        return FileHandle(descriptor: fd)
    }

    /// Opens an existing file for reading only.
    package static func openReadOnly(_ path: String) throws(SystemError) -> FileHandle {
        let fd = try retryingOnInterrupt("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        return FileHandle(descriptor: fd)
    }

    /// Opens a directory so that it can be synced after a rename.
    package static func openDirectory(_ path: String) throws(SystemError) -> FileHandle {
        let fd = try retryingOnInterrupt("open") { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return FileHandle(descriptor: fd)
    }

    /// Writes all of `bytes` at `offset`, continuing after short writes.
    /// The corresponding C function is `pwrite`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = try retryingOnInterrupt("pwrite") {
                pwrite(descriptor, bytes.baseAddress! + done, faultShortened(bytes.count - done, "pwrite"), off_t(offset) + off_t(done))
            }
            if written == 0 { throw SystemError("pwrite", errno: EIO) }
            done += written
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

    /// Reserves blocks for `[0, length)` so that the download cannot run out of space half-way.
    /// Returns false when the file system cannot preallocate (`EOPNOTSUPP`); `ENOSPC` throws.
    /// The corresponding C function is `fallocate`.
    package func preallocate(_ length: Int64) throws(SystemError) -> Bool {
        guard length > 0 else { return true }
        while true {
            if fastget_fallocate(descriptor, 0, off_t(length)) == 0 { return true }
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

/// Path operations on the file system.
package enum FileSystem {
    /// The size of the file at `path`, nil when there is none.
    package static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Bytes an unprivileged writer may still allocate on the file system holding `directory`;
    /// nil when it cannot be told. The corresponding C function is `statvfs`.
    package static func availableBytes(in directory: String) -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) &* Int64(info.f_frsize)
    }

    /// Whether anything (file, directory, link) exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The corresponding C function is `rename`.
    package static func rename(_ from: String, to: String) throws(SystemError) {
        _ = try retryingOnInterrupt("rename") { Glibc.rename(from, to) }
    }

    /// Removes a file; a missing file is not an error. The corresponding C function is `unlink`.
    package static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink") }
    }

    /// The names in the directory at `path` ("." and ".." left out). The corresponding C
    /// functions are `opendir` and `readdir`.
    package static func list(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError("opendir") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The directory part of `path` ("." when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Fsyncs the directory holding `path`, making a rename in it durable.
    package static func syncDirectory(containing path: String) throws(SystemError) {
        let directory = try FileHandle.openDirectory(directory(of: path))
        try directory.sync()
        try directory.close()
    }
}
