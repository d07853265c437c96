import Fastget
@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// The completions and the man page come from the option table `--help` prints, so they cannot
/// drift: every option is in each, the scripts parse in their shells (where installed), and the
/// man page in the repository is the one the table makes.
@Suite struct CompletionTests {
    static let manPage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/fastget.1")

    @Test(arguments: Completions.shells)
    func everyOptionIsCompletedAndTheScriptParses(shell: String) throws {
        let result = try runProcess(try fastgetExecutable(), ["--completion", shell])
        #expect(result.status == 0)
        for option in CommandLineOption.all {
            #expect(result.stdout.contains(shell == "fish" ? "-l \(option.long)" : "--\(option.long)"), "\(shell) lacks --\(option.long)")
        }
        guard let interpreter = findExecutable(shell) else { return } // checked where installed
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try result.stdout.write(toFile: directory.file("completion"), atomically: true, encoding: .utf8)
        let check = try runProcess(interpreter, ["-n", directory.file("completion")])
        #expect(check.status == 0, "\(shell) -n: \(check.stderr)")
    }

    @Test func theManPageInTheRepositoryIsTheOneTheTableMakes() throws {
        if ProcessInfo.processInfo.environment["FASTGET_WRITE_MAN"] != nil {
            try ManPage.text.write(to: CompletionTests.manPage, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: CompletionTests.manPage, encoding: .utf8)
        #expect(committed == ManPage.text, "scripts/fastget.1 is stale: rerun this test with FASTGET_WRITE_MAN=1")
        for option in CommandLineOption.all { #expect(committed.contains("\\fB\\-\\-\(ManPage.escaped(option.long))\\fR")) }
    }
}
