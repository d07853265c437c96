/// Something a thread may block in that another thread can unblock: a socket, a stream or a
/// connection over one. Registered while in use, so that a stop reaches it.
package protocol Interruptible: AnyObject, Sendable {
    /// Ends both directions so that a blocked call returns at once. Safe from any thread.
    func shutdown()
}
