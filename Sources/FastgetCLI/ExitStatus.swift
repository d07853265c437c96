import Fastget

/// The process's exit status: 0 for a run that did everything it was asked, else the status of
/// its failure's `FastgetError.Code` (sysexits.h values, 130 for an interruption). The library
/// has codes, not exit statuses: this is where the command maps them.
enum ExitStatus {
    static let success: Int32 = 0

    /// The status for a failure of `code`; 1 for a code this release does not know.
    static func of(_ code: FastgetError.Code) -> Int32 {
        switch code {
        case .usage: 64
        case .clientError: 65
        case .notFound: 66
        case .hostNotFound: 68
        case .unavailable, .serverError: 69
        case .cannotCreateOutput: 73
        case .localIO: 74
        case .temporary: 75
        case .protocolViolation, .tls: 76
        case .accessDenied: 77
        case .cancelled: 130
        default: 1
        }
    }

    /// The status for `error`.
    static func of(_ error: FastgetError) -> Int32 { of(error.code) }
}
