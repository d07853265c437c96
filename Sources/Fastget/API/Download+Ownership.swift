/// One owner per download: whoever writes `NAME.part` and `NAME.fastget` holds the lock on
/// `NAME.fastget.lock` for as long as it does. A second download of the same destination — in
/// another process or in this one — is refused at once and touches nothing.
extension Download {
    /// Takes the lock on `destination`'s files; throws `.cannotCreateOutput` when another
    /// download holds it.
    static func own(_ destination: String) throws(FastgetError) -> FileLock {
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
                hint: "move it away, or use -o FILE to save elsewhere")
        } catch {
            throw FastgetError.local(error, path: path, creating: true)
        }
        guard let lock else {
            throw FastgetError(
                .cannotCreateOutput, "another download is saving \(destination) (it holds \(path))",
                hint: "wait for it to finish, or use -o FILE to save elsewhere")
        }
        return lock
    }
}
