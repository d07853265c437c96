import Fastget

/// The process exit status of a run that did everything it was asked. Every failure's status
/// comes from its `FastgetError.Code` (`.usage.exitCode`, `.cancelled.exitCode`, …).
enum ExitStatus {
    static let success: Int32 = 0
}
