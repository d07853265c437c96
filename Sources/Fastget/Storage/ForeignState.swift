/// What another downloader left beside a file it did not finish: aria2's `NAME.aria2` (it
/// preallocates `NAME` whole, so the file's length says nothing) or axel's `NAME.st`. `-c`
/// keeps only the bytes that file marks complete and fetches the rest.
struct ForeignState: Equatable {
    enum Tool: String, CaseIterable {
        case aria2
        case axel

        var suffix: String { self == .aria2 ? ".aria2" : ".st" }
    }

    let tool: Tool
    /// The state file.
    let path: String
    /// The byte ranges it marks complete, in order, disjoint and not touching.
    let complete: [ByteRange]

    /// A bound on a state file's size: aria2's for a 1 TiB file in 16 KiB pieces is 8 MiB.
    static let maximumSize: Int64 = 16 << 20

    /// The state file as it was read: its name beside NAME and its identity, for the journal.
    let identity: Journal.AdoptedState

    /// The path of a state file another tool keeps beside `destination`, if there is one:
    /// anything at that name (a link, a FIFO) counts, and is refused when read.
    static func present(beside destination: String) -> (Tool, String)? {
        Tool.allCases.lazy.map { ($0, destination + $0.suffix) }.first { FileSystem.entryKind($0.1) != nil }
    }

    /// The state file beside `destination` read for a file of `length` bytes; nil when there
    /// is none. A state file that is there but cannot vouch for the bytes (damaged, of another
    /// format or another length, not a regular file, not this user's alone) is an error: its
    /// file is left alone.
    static func beside(_ destination: String, length: Int64) throws(FastgetError) -> ForeignState? {
        guard let (tool, path) = present(beside: destination) else { return nil }
        // Through no link and never waiting on a FIFO: the file read is the one checked.
        let file = try SidecarFiles.openExisting(path, readOnly: true, owned: true)
        defer { try? file.close() }
        do throws(ForeignStateError) {
            let (bytes, status) = try contents(of: file)
            let complete =
                switch tool {
                case .aria2: try Aria2ControlFile.completeRanges(bytes, length: length)
                case .axel: try AxelStateFile.completeRanges(bytes, length: length)
                }
            let identity = Journal.AdoptedState(
                name: fileName(path), device: status.device, inode: status.inode, size: status.size)
            return ForeignState(tool: tool, path: path, complete: complete, identity: identity)
        } catch {
            throw FastgetError(
                .cannotCreateOutput, "cannot continue \(destination) from \(path): \(error)",
                remedy: .moveStateFileAside(path: path, destination: destination))
        }
    }

    /// Removes the state file `-c` adopted for `destination` (after fastget's own rename: it
    /// describes a file that is now complete), only if it is still the very file that was read
    /// (same name, device, inode and size): a file put there since is someone else's.
    static func removeAdopted(_ adopted: Journal.AdoptedState, beside destination: String) {
        for tool in Tool.allCases where fileName(destination + tool.suffix) == adopted.name {
            let path = destination + tool.suffix
            guard let status = FileSystem.entryStatus(path), status.kind == .regular, status.device == adopted.device,
                status.inode == adopted.inode, status.size == adopted.size
            else { continue }
            try? FileSystem.remove(path)
        }
    }

    /// The last component of `path`.
    private static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    /// The bytes of `file`, a regular file of at most `maximumSize` bytes, and its status.
    private static func contents(of file: FileDescriptor) throws(ForeignStateError) -> ([UInt8], FileSystem.Status) {
        guard let status = try? file.status() else { throw ForeignStateError("it cannot be read") }
        guard status.size <= maximumSize else { throw ForeignStateError("it has \(status.size) bytes, more than a state file has") }
        var bytes = [UInt8](repeating: 0, count: Int(status.size))
        var filled = 0
        while filled < bytes.count {
            let count = try? bytes.withUnsafeMutableBytes { raw in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))
            }
            guard let count, count > 0 else { throw ForeignStateError("it cannot be read") }
            filled += count
        }
        return (bytes, status)
    }
}
