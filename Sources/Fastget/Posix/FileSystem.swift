internal import Glibc
internal import CLinux

/// Path operations on the file system.
package enum FileSystem {
    /// The size of the file at `path`, nil when there is none.
    package static func size(_ path: String) -> Int64? {
        faultCountLookup()
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Bytes an unprivileged writer may still allocate on the file system holding `directory`;
    /// nil when it cannot be told. The corresponding C function is `statvfs`.
    package static func availableBytes(in directory: String) -> Int64? {
        faultCountLookup()
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) &* Int64(info.f_frsize)
    }

    /// Whether anything (file, directory, link) exists at `path`.
    package static func exists(_ path: String) -> Bool {
        faultCountLookup()
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What a path can name.
    package enum Kind: Sendable, Equatable {
        case regular, directory, characterDevice, blockDevice, fifo, socket, symbolicLink, other
    }

    /// What is at `path` itself, a symbolic link not followed; nil when nothing is.
    /// The corresponding C function is `lstat`.
    package static func entryKind(_ path: String) -> Kind? {
        faultCountLookup()
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return kind(mode: info.st_mode)
    }

    /// Who a file is, and whose: what `lstat`/`fstat` say beyond its kind.
    package struct Status: Sendable, Equatable {
        package let kind: Kind
        package let device: UInt64
        package let inode: UInt64
        /// Names it has (hard links).
        package let links: UInt64
        package let owner: UInt32
        package let size: Int64

        init(_ info: stat) {
            kind = FileSystem.kind(mode: info.st_mode)
            (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
            (links, owner, size) = (UInt64(info.st_nlink), info.st_uid, Int64(info.st_size))
        }

        /// Whether `other` is the same file (device and inode).
        package func isSameFile(as other: Status) -> Bool { device == other.device && inode == other.inode }
    }

    /// What is at `path` itself, a symbolic link not followed; nil when nothing is.
    /// The corresponding C function is `lstat`.
    package static func entryStatus(_ path: String) -> Status? {
        faultCountLookup()
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// What is at `path`, following links; nil when nothing is (or it cannot be told).
    package static func kind(_ path: String) -> Kind? {
        faultCountLookup()
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return kind(mode: info.st_mode)
    }

    /// The kind of file a `st_mode` describes.
    static func kind(mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFIFO: return .fifo
        case S_IFSOCK: return .socket
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Throws why the file at `path` cannot be read (it is not there, not allowed). The
    /// corresponding C function is `access`.
    package static func checkReadable(_ path: String) throws(SystemError) {
        if access(path, R_OK) != 0 { throw SystemError("access") }
    }

    /// The extended attribute `name` of the file at `path` (at most 64 KiB), nil when it has
    /// none. The corresponding C function is `getxattr`.
    package static func attribute(_ path: String, _ name: String) -> String? {
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = bytes.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }

    /// The last modification time of the file at `path`, `seconds.nanoseconds`.
    package static func modificationTime(_ path: String) -> String? {
        faultCountLookup()
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    package static func isDirectory(_ path: String) -> Bool {
        faultCountLookup()
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The corresponding C function is `rename`.
    package static func rename(_ from: String, to: String) throws(SystemError) {
        _ = try retryingOnInterrupt("rename") { Glibc.rename(from, to) }
    }

    /// Removes a file; a missing file is not an error. The corresponding C function is `unlink`.
    package static func remove(_ path: String) throws(SystemError) {
        faultCountUnlink()
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

    /// Creates the directory at `path` and every missing parent (mode 0755, as `mkdir -p`).
    /// The corresponding C function is `mkdir`.
    package static func makeDirectories(_ path: String) throws(SystemError) {
        guard !path.isEmpty, !isDirectory(path) else { return }
        let parent = directory(of: path)
        if parent != path && parent != "." && parent != "/" { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir") }
    }

    /// Fsyncs the directory holding `path`, making a rename in it durable.
    package static func syncDirectory(containing path: String) throws(SystemError) {
        let directory = try FileDescriptor.openDirectory(directory(of: path))
        try directory.sync()
        try directory.close()
    }
}

extension FileSystem {
    /// Renames `from` to `to` unless something exists at `to` (then `EEXIST`): a file that
    /// appeared at `to` meanwhile is never replaced. Where the file system cannot rename that
    /// way, a hard link (which never replaces either) and an unlink do the same.
    /// The corresponding C functions are `renameat2` with `RENAME_NOREPLACE`, `link` and `unlink`.
    package static func renameWithoutReplacing(_ from: String, to: String) throws(SystemError) {
        do {
            _ = try retryingOnInterrupt("rename") { fastget_rename_noreplace(from, to) }
        } catch let error where error.errno == EINVAL || error.errno == ENOSYS || error.errno == EOPNOTSUPP {
            _ = try retryingOnInterrupt("link") { link(from, to) }
            try remove(from)
        }
    }
}
