/// Where workers put body bytes: the `.part` file (`OutputFile`), or, when the file streams to
/// a descriptor, a window that puts them back in order (`ReorderWindow`).
protocol WriteTarget: Sendable {
    /// Writes `bytes` at file offset `offset`, all of them.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(FastgetError)
    /// Moves `count` bytes from `pipe` to file offset `offset` (only where splicing is on).
    func write(from pipe: SplicePipe, at offset: Int64, count: Int) throws(FastgetError)
    /// Starts writeback of bytes written (nothing to do for a stream).
    func startWriteback(_ range: ByteRange)
}
