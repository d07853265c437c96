/// A blocking, bidirectional byte stream: a TCP socket, or TLS over one.
///
/// One thread uses a stream at a time; `shutdown()` may be called from any thread to unblock it.
package protocol ByteStream: Interruptible {
    /// Reads up to `buffer.count` bytes; returns 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Writes every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Ends both directions so that a blocked `read` returns at once. Safe from any thread.
    func shutdown()
    /// Called before reading data that ends where the stream ends (a body delimited by the
    /// close): from then on, `read` throws rather than return 0 when it can tell that the end
    /// was not the peer's own (TLS without a close_notify, which anyone on the path can forge).
    func requireAnnouncedEnd()
}

extension ByteStream {
    /// TCP cannot tell a FIN from the peer from a forged one: nothing changes.
    package func requireAnnouncedEnd() {}
}
