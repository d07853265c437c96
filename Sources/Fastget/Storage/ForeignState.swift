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

    /// The path of a state file another tool keeps beside `destination`, if there is one.
    static func present(beside destination: String) -> (Tool, String)? {
        Tool.allCases.lazy.map { ($0, destination + $0.suffix) }.first { FileSystem.kind($0.1) != nil }
    }

    /// The state file beside `destination` read for a file of `length` bytes; nil when there
    /// is none. A state file that is there but cannot vouch for the bytes (damaged, of another
    /// format or another length, not a regular file) is an error: its file is left alone.
    static func beside(_ destination: String, length: Int64) throws(FastgetError) -> ForeignState? {
        guard let (tool, path) = present(beside: destination) else { return nil }
        do throws(ForeignStateError) {
            let bytes = try contents(of: path)
            let complete =
                switch tool {
                case .aria2: try Aria2ControlFile.completeRanges(bytes, length: length)
                case .axel: try AxelStateFile.completeRanges(bytes, length: length)
                }
            return ForeignState(tool: tool, path: path, complete: complete)
        } catch {
            throw FastgetError(
                .cannotCreateOutput, "cannot continue \(destination) from \(path): \(error)",
                hint:
                    "use --overwrite to download it again (\(tool.rawValue) marks which of its bytes are done; without that, nothing vouches for them)"
            )
        }
    }

    /// The bytes of a regular file of at most `maximumSize` bytes.
    private static func contents(of path: String) throws(ForeignStateError) -> [UInt8] {
        guard FileSystem.kind(path) == .regular else { throw ForeignStateError("it is not a regular file") }
        guard let file = try? FileDescriptor.openReadOnly(path), let size = try? file.size() else {
            throw ForeignStateError("it cannot be read")
        }
        guard size <= maximumSize else { throw ForeignStateError("it has \(size) bytes, more than a state file has") }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < bytes.count {
            let count = try? bytes.withUnsafeMutableBytes { raw in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))
            }
            guard let count, count > 0 else { throw ForeignStateError("it cannot be read") }
            filled += count
        }
        return bytes
    }
}
