@testable import Fastget
@testable import FastgetCLI
import Testing

/// The command maps the library's codes to exit statuses itself; the library's deprecated
/// `exitCode` still gives the same numbers, for code written against earlier releases.
@Suite struct ExitStatusTests {
    @Test func everyCodeHasTheStatusEarlierReleasesGaveIt() {
        for code in FastgetError.Code.all {
            #expect(ExitStatus.of(code) == code.commandExitStatus, "\(code)")
        }
        #expect(ExitStatus.of(FastgetError.Code(rawValue: "something-new")) == 1)
        #expect(ExitStatus.of(FastgetError(.tls, "x")) == 76)
    }

    @available(*, deprecated, message: "reads the deprecated exitCode on purpose")
    @Test func theDeprecatedExitCodeStillWorks() {
        #expect(FastgetError(.usage, "x").exitCode == 64 && FastgetError.Code.cancelled.exitCode == 130)
    }
}
