extension CookieJar {
    /// Writes the cookies not yet expired to `path` as a Netscape cookie file
    /// (`netscapeText`), mode 0600 (they are credentials), in one step: a new temporary file
    /// beside it, synced and renamed over it, so that a reader never sees half a file and a
    /// crash leaves the old one whole. The temporary is created exclusively, never through a
    /// link. Fails with `.cannotCreateOutput` when the directory cannot take it, `.localIO`
    /// for a write that fails.
    public func save(to path: String) throws(FastgetError) {
        let temporaryPath = path + "." + ProcessIdentity.uniqueSuffix() + SidecarFiles.temporarySuffix
        let file: FileDescriptor
        do { file = try FileDescriptor.createNew(temporaryPath, permissions: 0o600) } catch {
            throw FastgetError.local(error, path: path, creating: true)
        }
        do throws(SystemError) {
            try file.write(Array(netscapeText().utf8), at: 0)
            try file.sync()
            try file.close()
            try FileSystem.rename(temporaryPath, to: path)
            try FileSystem.syncDirectory(containing: path)
        } catch {
            try? FileSystem.remove(temporaryPath)
            throw FastgetError.local(error, path: path)
        }
    }
}
