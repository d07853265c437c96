internal import Glibc

/// A failed name lookup, with the resolver's own code.
package struct ResolveError: Error, Sendable, CustomStringConvertible {
    package let host: String
    package let code: Int32
    package let systemErrno: Int32
    /// No answer came before the deadline (the lookup may still be running on its thread).
    package let timedOut: Bool

    package init(host: String, code: Int32, systemErrno: Int32 = 0, timedOut: Bool = false) {
        self.host = host
        self.code = code
        self.systemErrno = systemErrno
        self.timedOut = timedOut
    }

    /// A lookup given up at its deadline.
    package static func timeout(host: String) -> ResolveError { ResolveError(host: host, code: EAI_AGAIN, timedOut: true) }

    /// The name does not exist (as opposed to a temporary failure of the resolver).
    package var isNotFound: Bool {
        !timedOut && (code == EAI_NONAME || code == EAI_FAIL || code == ResolveError.noData || code == EAI_SERVICE)
    }

    /// `EAI_NODATA` (the name exists but has no address): glibc's netdb.h declares it only
    /// under `_GNU_SOURCE`, which Swift's Glibc module does not define.
    private static var noData: Int32 { -5 }

    package var description: String {
        if timedOut { return "no answer within the connect timeout" }
        if code == EAI_SYSTEM { return SystemError.describe(systemErrno) }
        return String(cString: gai_strerror(code))
    }
}
