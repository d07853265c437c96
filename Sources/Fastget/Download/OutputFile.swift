/// The file being written: `<name>.part` at full length (sparse, preallocated where the file
/// system can), renamed to `<name>` only once every byte is in.
final class OutputFile: Sendable {
    let finalPath: String
    let partPath: String
    private let handle: FileHandle

    /// Creates (or empties) `<finalPath>.part` and sizes it to `length` when known.
    init(finalPath: String, length: Int64?) throws(FastgetError) {
        self.finalPath = finalPath
        partPath = finalPath + ".part"
        do {
            handle = try FileHandle.open(partPath, create: true, truncate: true)
        } catch {
            throw FastgetError.local(error, path: partPath, creating: true)
        }
        guard let length, length > 0 else { return }
        do {
            try handle.setLength(length)
            _ = try handle.preallocate(length)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
    }

    /// Writes `bytes` at `offset`, all of them. Safe from several threads at once (positional).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(FastgetError) {
        do {
            try handle.write(bytes, at: offset)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
    }

    /// Moves `count` bytes from `pipe` into the file at `offset` (the zero-copy path).
    func write(from pipe: SplicePipe, at offset: Int64, count: Int) throws(FastgetError) {
        do {
            try pipe.drain(into: handle, at: offset, count: count)
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
    }

    /// Starts writeback of bytes already written, so the final fsync (and later checkpoints)
    /// overlap the transfer instead of following it.
    func startWriteback(_ range: ByteRange) {
        handle.startWriteback(offset: range.start, length: range.count)
    }

    /// Makes the file durable and gives it its final name: set the length (for a stream of
    /// unknown length), fsync, rename, fsync the directory.
    func finish(length: Int64) throws(FastgetError) {
        do {
            if try handle.size() != length { try handle.setLength(length) }
            try handle.sync()
            try handle.close()
        } catch {
            throw FastgetError.local(error, path: partPath)
        }
        do {
            try FileSystem.rename(partPath, to: finalPath)
            try FileSystem.syncDirectory(containing: finalPath)
        } catch {
            throw FastgetError.local(error, path: finalPath)
        }
    }
}
