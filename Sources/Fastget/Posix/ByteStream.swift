/// A blocking, bidirectional byte stream: a TCP socket, or TLS over one.
///
/// One thread uses a stream at a time; `shutdown()` may be called from any thread to unblock it.
package protocol ByteStream: AnyObject, Sendable {
    /// Reads up to `buffer.count` bytes; returns 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Writes every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Ends both directions so that a blocked `read` returns at once. Safe from any thread.
    func shutdown()
}
