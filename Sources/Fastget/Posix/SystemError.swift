internal import Glibc

/// A failed system call: the operation that failed and the `errno` it left.
package struct SystemError: Error, Sendable, CustomStringConvertible {
    package let operation: String
    package let errno: Int32

    package init(_ operation: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.errno = errno
    }

    /// The C library's text for the error number (`strerror_r`).
    package var reason: String { SystemError.describe(errno) }

    package var description: String { "\(operation): \(reason)" }

    package static func describe(_ code: Int32) -> String {
        // glibc's strerror is thread-safe: static strings for known codes, a per-thread buffer otherwise.
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// `operation` gave up at its deadline.
    package static func timedOut(_ operation: String) -> SystemError { SystemError(operation, errno: ETIMEDOUT) }

    package var isTimeout: Bool { errno == EAGAIN || errno == EWOULDBLOCK || errno == ETIMEDOUT }
}

/// Repeats a system call that failed with `EINTR`; throws `SystemError` for any other failure.
/// `site` names the call for the fault injector when `operation` alone does not tell it apart
/// (test builds only; see `SyscallFaults`).
@inline(__always)
package func retryingOnInterrupt<T: BinaryInteger>(_ operation: String, site: String? = nil, _ body: () -> T) throws(SystemError) -> T {
    while true {
        #if FASTGET_FAULTS
        // An injected fault stands in for the call, before it reaches the kernel, and takes
        // the path the real error would.
        if let injected = SyscallFaults.error(at: site ?? operation) {
            if injected == EINTR { continue }
            throw SystemError(operation, errno: injected)
        }
        #endif
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(operation, errno: code)
    }
}
