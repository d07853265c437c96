import Fastget
@testable import FastgetCLI
import Testing

/// The option table that drives the parser and `--help`.
@Suite struct CommandLineOptionTests {
    @Test func everyNameIsDeclaredOnce() {
        let names = CommandLineOption.all.flatMap { option in ["--" + option.long] + (option.short.map { ["-\($0)"] } ?? []) }
        #expect(Set(names).count == names.count, "\(names)")
    }

    @Test func theRangesInHelpAndErrorsAreTheParsersRanges() throws {
        let segments = try #require(CommandLineOption.all.first { $0.long == "segments" })
        let range = DownloadOptions.segmentRange
        #expect(segments.helpLine.contains(", \(range.lowerBound)-\(range.upperBound), or auto ("))
        var invocation = Invocation()
        #expect(throws: UsageError.self) { try segments.apply(String(range.upperBound + 1), name: "-n", to: &invocation) }
        try segments.apply(String(range.upperBound), name: "-n", to: &invocation)
        #expect(invocation.options.segments == range.upperBound)
        try segments.apply("auto", name: "-n", to: &invocation)
        #expect(invocation.options.segments == nil)
        #expect(throws: UsageError.self) { try segments.apply("automatic", name: "-n", to: &invocation) }
    }
}
