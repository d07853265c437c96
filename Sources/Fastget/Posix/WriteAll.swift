internal import Glibc

/// The one loop that writes until every byte of `bytes` is written, whatever does the writing:
/// `step` writes some of `remaining` (the bytes not yet written; `written` bytes came before
/// them) and returns how many it wrote, or throws. A short write goes round again with the rest.
///
/// A step over a write-like system call is `writeStep`; a step that returns 0 is called again.
@inline(__always)
package func writeAll<Failure: Error>(
    _ bytes: UnsafeRawBufferPointer,
    _ step: (_ remaining: UnsafeRawBufferPointer, _ written: Int) throws(Failure) -> Int
) throws(Failure) {
    var written = 0
    while written < bytes.count {
        written += try step(UnsafeRawBufferPointer(rebasing: bytes[written...]), written)
    }
}

/// One step of `writeAll` through a write-like system call (`write`, `pwrite`, `send`) that
/// `call` makes with a start and a count: `EINTR` is retried, a call that wrote nothing fails
/// with `EIO` (rather than be called for ever), any other failure throws `SystemError(operation)`.
/// In test builds the fault injector may fail the call or shorten the count at `operation`.
@inline(__always)
package func writeStep(
    _ operation: String, _ remaining: UnsafeRawBufferPointer,
    _ call: (_ start: UnsafeRawPointer, _ count: Int) -> Int
) throws(SystemError) -> Int {
    let written = try retryingOnInterrupt(operation) { call(remaining.baseAddress!, faultShortened(remaining.count, operation)) }
    if written == 0 { throw SystemError(operation, errno: EIO) }
    return written
}
