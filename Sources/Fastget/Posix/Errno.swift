internal import Glibc

/// The `errno` values the layers above Posix look at, by name, so that they compare
/// `SystemError.errno` without importing the C library (and never with a bare number).
/// Names follow swift-system's `Errno`; each says the C name it stands for. Computed, so that
/// they hold no storage of their own.
package enum Errno {
    /// The calling thread's `errno` now: read it right after the call whose failure it reports.
    package static var current: Int32 { Glibc.errno }

    /// `EIO`.
    package static var ioError: Int32 { EIO }
    /// `ENOSPC`.
    package static var noSpace: Int32 { ENOSPC }
    /// `EDQUOT`.
    package static var diskQuotaExceeded: Int32 { EDQUOT }
    /// `EACCES`.
    package static var permissionDenied: Int32 { EACCES }
    /// `EPERM`.
    package static var notPermitted: Int32 { EPERM }
    /// `EROFS`.
    package static var readOnlyFileSystem: Int32 { EROFS }
    /// `ENOENT`.
    package static var noSuchFileOrDirectory: Int32 { ENOENT }
    /// `ENOTDIR`.
    package static var notDirectory: Int32 { ENOTDIR }
    /// `EISDIR`.
    package static var isDirectory: Int32 { EISDIR }
    /// `ENAMETOOLONG`.
    package static var fileNameTooLong: Int32 { ENAMETOOLONG }
    /// `EEXIST`.
    package static var fileExists: Int32 { EEXIST }
    /// `ELOOP`.
    package static var tooManySymbolicLinkLevels: Int32 { ELOOP }
    /// `EINVAL`.
    package static var invalidArgument: Int32 { EINVAL }
    /// `ENOSYS`.
    package static var noFunction: Int32 { ENOSYS }
    /// `EAGAIN` (the same value as `EWOULDBLOCK` on Linux).
    package static var resourceTemporarilyUnavailable: Int32 { EAGAIN }
    /// `ETIMEDOUT`.
    package static var timedOut: Int32 { ETIMEDOUT }
    /// `EPIPE`.
    package static var brokenPipe: Int32 { EPIPE }
    /// `ECONNREFUSED`.
    package static var connectionRefused: Int32 { ECONNREFUSED }
    /// `ENETUNREACH`.
    package static var networkUnreachable: Int32 { ENETUNREACH }
    /// `EHOSTUNREACH`.
    package static var noRouteToHost: Int32 { EHOSTUNREACH }
    /// `EADDRNOTAVAIL`.
    package static var addressNotAvailable: Int32 { EADDRNOTAVAIL }
    /// `EAFNOSUPPORT`.
    package static var addressFamilyNotSupported: Int32 { EAFNOSUPPORT }
}
