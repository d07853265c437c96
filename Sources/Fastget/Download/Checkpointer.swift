/// Writes the journal so that it never claims a byte that is not durable:
///
/// 1. read every segment's watermark (each covers bytes whose `pwrite`/`splice` has returned);
/// 2. `fdatasync` the `.part` file — those bytes are now on disk;
/// 3. write the journal to `<name>.fastget.tmp`, `fsync` it;
/// 4. rename it over `<name>.fastget`, `fsync` the directory.
///
/// A crash at any point leaves either the previous journal or the new one, each true.
final class Checkpointer: Sendable {
    let path: String
    private let temporaryPath: String
    private let output: OutputFile
    private let header: Journal

    /// - Parameter header: URL, length and validator; its segments are replaced at each checkpoint.
    init(path: String, output: OutputFile, header: Journal) {
        self.path = path
        temporaryPath = path + ".tmp"
        self.output = output
        self.header = header
    }

    /// Takes a checkpoint of `table`. Throws `.localIO` (disk full, I/O error); the previous
    /// journal then stays in place.
    /// - Returns: the bytes the journal now records as on disk.
    @discardableResult
    func checkpoint(_ table: SegmentTable) throws(FastgetError) -> Int64 {
        var journal = header
        journal.segments = table.snapshot()
        try output.syncData()
        let bytes = journal.encoded()
        do throws(SystemError) {
            let file = try FileHandle.open(temporaryPath, create: true, truncate: true)
            try file.write(bytes, at: 0)
            try file.sync()
            try file.close()
            try FileSystem.rename(temporaryPath, to: path)
            try FileSystem.syncDirectory(containing: path)
        } catch {
            try? FileSystem.remove(temporaryPath)
            throw FastgetError.local(error, path: path)
        }
        return journal.bytesWritten
    }

    /// Removes the journal once the file is complete under its final name.
    func remove() {
        try? FileSystem.remove(path)
        try? FileSystem.remove(temporaryPath)
    }

    /// Reads the journal at `path`: nil when there is none.
    static func load(_ path: String) -> Result<Journal, JournalError>? {
        guard FileSystem.exists(path) else { return nil }
        guard let file = try? FileHandle.openReadOnly(path), let size = try? file.size(),
              size <= Int64(Journal.maximumSegments * 24 + 4 * Journal.maximumStringBytes) else {
            return .failure(.invalid("unreadable or oversized"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < bytes.count {
            let count = (try? bytes.withUnsafeMutableBytes { raw in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))
            }) ?? 0
            if count <= 0 { break }
            filled += count
        }
        return Result { () throws(JournalError) in try Journal.decode(Array(bytes[0..<filled])) }
    }
}
