import Synchronization

/// Writes the journal so that it never claims a byte that is not durable:
///
/// 1. read every segment's watermark (each covers bytes whose `pwrite`/`splice` has returned);
/// 2. `fdatasync` the `.part` file — those bytes are now on disk;
/// 3. write the journal to a temporary beside it, `fsync` it;
/// 4. rename it over `<name>.fastget`, `fsync` the directory.
///
/// A crash at any point leaves either the previous journal or the new one, each true.
///
/// The temporary file's name is this process's own (`<name>.fastget.<random>.tmp`): even a
/// writer that ignored the download's lock could not interleave its bytes with ours.
final class Checkpointer: Checkpointing {
    let path: String
    private let output: OutputFile
    private let header: Journal
    private let mirrors: Locked<(list: [Journal.Mirror], digest: Checksum?)>
    /// Whether a journal of this download may be at `path`: one was there when the download
    /// began, or this wrote one. A small file that finishes before its first checkpoint has
    /// none, and looks for none, nor removes one (another download's name is under its lock).
    private let present: Atomic<Bool>
    /// When this run began on the monotonic clock: each journal adds the time since to the
    /// header's `seconds` (the earlier runs').
    private let started: Double

    /// - Parameters:
    ///   - header: URL, length, validator and mirrors; its segments are replaced at each
    ///     checkpoint.
    ///   - present: whether a journal of this download is at `path` already (a resumed one);
    ///     false only for a download that made sure none is.
    init(path: String, output: OutputFile, header: Journal, present: Bool = true, started: Double) {
        self.path = path
        self.output = output
        self.header = header
        mirrors = Locked((header.mirrors, header.digest))
        self.present = Atomic(present)
        self.started = started
    }

    /// Whether this download has a journal at `path` (see `present`).
    var hasJournal: Bool { present.load(ordering: .acquiring) }

    /// The mirrors the next checkpoints record, once they are probed, and the digest that
    /// vouches for their bytes: set before any of their bytes can be written.
    func record(mirrors: [Journal.Mirror], digest: Checksum?) {
        self.mirrors.withLock { $0 = (mirrors, digest) }
    }

    /// The header with the current mirrors and `table`'s segments.
    private func journal(_ table: SegmentTable) -> Journal {
        var journal = header
        (journal.mirrors, journal.digest) = mirrors.withLock { $0 }
        journal.segments = table.snapshot()
        journal.seconds = header.seconds + max(0, MonotonicClock.seconds() - started)
        return journal
    }

    /// Takes a checkpoint of `table`. Throws `.localIO` (disk full, I/O error); the previous
    /// journal then stays in place. Once a sync of the output file has failed, every later
    /// checkpoint throws too (`OutputFile.syncData`): the data it would vouch for may be lost.
    /// - Returns: the bytes the journal now records as on disk.
    @discardableResult
    func checkpoint(_ table: SegmentTable) throws(FastgetError) -> Int64 {
        let journal = journal(table)
        try output.syncData()
        present.store(true, ordering: .releasing) // a failed write may leave it half-done: look then
        try Checkpointer.write(journal, to: path, durably: true)
        return journal.bytesWritten
    }

    /// Writes the first journal of a fresh download, the moment its `.part` exists, so that a
    /// kill before the first checkpoint still finds the download's identity and plan. It claims
    /// no byte, so it needs no sync: lost or torn by a power cut, it is ignored and the download
    /// starts over — which is all it could have offered.
    func begin(_ table: SegmentTable) throws(FastgetError) {
        let journal = journal(table)
        precondition(journal.bytesWritten == 0, "a first journal claims no bytes")
        present.store(true, ordering: .releasing)
        try Checkpointer.write(journal, to: path, durably: false)
    }

    /// After the finished file failed its digest: a journal that claims none of its bytes (all
    /// there, and wrong) but names `failedMirrors`, so that the rerun fetches the file again
    /// without them. Claiming nothing, it needs no sync.
    func discard(_ table: SegmentTable, failedMirrors: [String]) throws(FastgetError) {
        var journal = journal(table)
        journal.segments = journal.segments.map { Journal.Entry(start: $0.start, end: $0.end, written: $0.start) }
        journal.failedMirrors = failedMirrors
        present.store(true, ordering: .releasing)
        try Checkpointer.write(journal, to: path, durably: false)
    }

    /// Writes `journal` at `path` by way of a temporary file of this process's own, renamed
    /// into place; `durably` syncs the file before the rename and the directory after it.
    /// The temporary is created exclusively and never through a link: a name someone planted
    /// (it would have to guess 17 random characters) is passed over, never written through or removed.
    static func write(_ journal: Journal, to path: String, durably: Bool) throws(FastgetError) {
        let (temporaryPath, file) = try createTemporary(for: path)
        do throws(SystemError) {
            try file.write(journal.encoded(), at: 0)
            if durably { try file.sync() }
            try file.close()
            try FileSystem.rename(temporaryPath, to: path)
            if durably { try FileSystem.syncDirectory(containing: path) }
        } catch {
            try? FileSystem.remove(temporaryPath)
            throw FastgetError.local(error, path: path)
        }
    }

    /// A new temporary for the journal at `path`, created exclusively under the first of a few
    /// fresh names that is free.
    private static func createTemporary(for path: String) throws(FastgetError) -> (String, FileDescriptor) {
        var attempts = 0
        while true {
            let temporaryPath = SidecarFiles.temporary(forJournal: path)
            do {
                return (temporaryPath, try FileDescriptor.createNew(temporaryPath))
            } catch let error where error.errno == Errno.fileExists && attempts < 3 {
                attempts += 1
            } catch let error where error.errno == Errno.fileExists {
                throw SidecarFiles.refusal(temporaryPath, FileSystem.entryKind(temporaryPath))
            } catch {
                throw FastgetError.local(error, path: path)
            }
        }
    }

    /// Removes the journal once the file is complete under its final name (or must go): only
    /// when there may be one.
    func remove() {
        guard present.exchange(false, ordering: .acquiringAndReleasing) else { return }
        try? FileSystem.remove(path)
    }

    /// Reads the journal at `path`: nil when there is none.
    static func load(_ path: String) -> Result<Journal, JournalError>? {
        guard FileSystem.exists(path) else { return nil }
        // Never through a link, never waiting on a FIFO: only a regular file is read, and only
        // one of this user's with no other name (another user's journal, in a directory others
        // may write, would make this run adopt their `.part`).
        guard let file = try? FileDescriptor.openRegular(path, readOnly: true), let status = try? file.status() else {
            return .failure(.notOwned("it cannot be read"))
        }
        if let problem = SidecarFiles.ownershipProblem(status) { return .failure(.notOwned(problem)) }
        guard status.size <= Journal.maximumEncodedSize else { return .failure(.foreign) }
        var bytes = [UInt8](repeating: 0, count: Int(status.size))
        var filled = 0
        while filled < bytes.count {
            let count =
                (try? bytes.withUnsafeMutableBytes { raw in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))
                }) ?? 0
            if count <= 0 { break }
            filled += count
        }
        return Result { () throws(JournalError) in try Journal.decode(Array(bytes[0..<filled])) }
    }
}
