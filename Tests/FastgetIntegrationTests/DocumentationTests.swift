import Fastget
@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// The README, `--help` and the man page are checked against the option table, the exit codes
/// and `Manual`, so none can drift: an option, an alias or an exit status added to the code and
/// not to the documents fails here, and so does a README that outgrows a front page.
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func readme() throws -> String { try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8) }

    /// Options the README's summary leaves to `--help` and the man page, each for a reason.
    static let notInTheREADMEsSummary: Set<String> = [
        "help", "version", // everyone tries them
        "location", "remote-name", // curl's habits, in the "coming from" table instead
        "continue-at", // curl's -C -, in the "coming from" table instead
        "fail", "show-error", "remote-header-name", "digest", // curl's, accepted; in the "coming from" table
    ]

    /// Aliases the "coming from" table leaves out: fastget's own earlier names, not other tools'.
    static let notInTheComingFromTable: Set<String> = ["--max-connections"]

    /// The text of the README from the heading `## title` to the next `## ` heading.
    static func section(_ title: String, of text: String) throws -> String {
        let start = try #require(text.range(of: "\n## \(title)\n"), "README has no section '\(title)'")
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    @Test func helpFitsEightyColumnsAndEndsWithExamples() throws {
        let result = try runProcess(try fastgetExecutable(), ["--help"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { #expect(line.count <= HelpText.width, "--help line of \(line.count) columns: \(line)") }
        let examples = try #require(result.stdout.range(of: "\nExamples:\n"))
        for example in Manual.examples.prefix(Manual.helpExamples) {
            #expect(result.stdout[examples.upperBound...].contains("  \(example.command)\n"))
        }
        for option in CommandLineOption.all { #expect(result.stdout.contains(option.helpNames + " ")) }
    }

    @Test func wrappingBreaksAtSpacesOnly() {
        let lines = HelpText.wrapped(String(repeating: "word ", count: 40), first: "  -x", indent: 26)
        #expect(lines.count > 1)
        for line in lines {
            #expect(line.count <= HelpText.width)
            #expect(line.hasSuffix("word"))
        }
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 26) + "word") })
        #expect(HelpText.wrapped("a b", first: "      --no-mirrors-from-headers", indent: 26) == ["      --no-mirrors-from-headers  a b"])
    }

    @Test func theREADMEIsAFrontPage() throws {
        let readme = try Self.readme()
        #expect(readme.utf8.count <= 16 * 1024, "README.md is \(readme.utf8.count) bytes; a front page has at most 16 KiB")
        // Its first commands are still the two that set up, run and test fastget.
        let firstBlock = try #require(readme.split(separator: "```").dropFirst().first)
        #expect(firstBlock.contains("apt-get install -y libssl-dev && swift build -c release"))
        #expect(firstBlock.contains("apt-get install -y libssl-dev nginx openssl && swift test"))
        #expect(try Self.section("Install", of: readme).contains("install -m 755 .build/release/fastget /usr/local/bin/"))
    }

    @Test func everyOptionIsInTheManPageAndTheREADMEsSummary() throws {
        let summary = try Self.section("Options", of: try Self.readme())
        for option in CommandLineOption.all where !Self.notInTheREADMEsSummary.contains(option.long) {
            #expect(summary.contains("--\(option.long)"), "README's option summary lacks --\(option.long)")
        }
        for option in CommandLineOption.all { #expect(ManPage.text.contains("\\fB\\-\\-\(ManPage.escaped(option.long))\\fR")) }
    }

    @Test func everyAliasIsInTheComingFromTable() throws {
        let table = try Self.section("Coming from curl, wget or aria2", of: try Self.readme())
        for alias in CommandLineOption.all.flatMap(\.aliases) where !Self.notInTheComingFromTable.contains(alias) {
            #expect(table.contains("`\(alias)") || table.contains("/\(alias)`"), "the 'coming from' table lacks \(alias)")
        }
    }

    @Test func everyExitStatusIsInTheREADMEAndTheManPage() throws {
        let table = try Self.section("Exit codes", of: try Self.readme())
        for (status, _) in HelpText.exitCodes {
            #expect(table.contains("\n| \(status) |"), "README's exit codes lack \(status)")
            #expect(ManPage.text.contains(".TP\n\\fB\(status)\\fR\n"))
        }
    }

    /// Every `fastget …` line of the README's code blocks, and every example, is a command line
    /// the parser takes: a renamed option cannot leave a stale example behind.
    @Test func theREADMEsCommandsParseAndShowTheExamples() throws {
        let readme = try Self.readme()
        for example in Manual.examples { #expect(readme.contains(example.command), "README lacks the example \(example.command)") }
        let commands = readme.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("fastget ") }
        #expect(commands.count >= Manual.examples.count)
        for command in commands + Manual.examples.map(\.command)[...] {
            let line = command.split(separator: "#", maxSplits: 1).first.map(String.init) ?? command
            let words = (line.split(separator: "|").first ?? "").split(separator: " ").dropFirst().map(String.init)
            #expect(throws: Never.self, "\(command)") { _ = try ArgumentParser.parse(words) }
        }
    }

    @Test func theManualsConfigurationExampleIsRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try (Manual.configurationExample.joined(separator: "\n") + "\n").write(toFile: directory.file("config"), atomically: true, encoding: .utf8)
        let invocation = try ArgumentParser.parse(["https://example.com/f"], configuration: directory.file("config"))
        #expect(invocation.options.segments == 16)
        #expect(invocation.quiet)
    }

    @Test func everyOptionDetailNamesAnOption() {
        let names = Set(CommandLineOption.all.map(\.long))
        for name in OptionDetails.byOption.keys { #expect(names.contains(name), "OptionDetails has --\(name), which is no option") }
    }

    /// Every environment variable the library or the command reads is in the man page's
    /// ENVIRONMENT section: a new `getenv` cannot go unmentioned.
    @Test func everyVariableTheSourcesReadIsInTheManual() throws {
        let pattern = try NSRegularExpression(pattern: #"(?:Environment\.value|getenv|environment)\("([A-Za-z_]+)"(?:, *"([A-Za-z_]+)")?"#)
        let documented = Set(Manual.environment.flatMap { $0.names.split(separator: ", ").map(String.init) })
        var found: Set<String> = []
        for folder in ["Sources/Fastget", "Sources/FastgetCLI"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    for group in 1..<match.numberOfRanges {
                        if let range = Range(match.range(at: group), in: text) { found.insert(String(text[range])) }
                    }
                }
            }
        }
        #expect(found.count >= 5, "\(found)")
        // FASTGET_FAULTS exists in debug builds only, for the tests' fault injection.
        for name in found.subtracting(["FASTGET_FAULTS"]) { #expect(documented.contains(name), "ENVIRONMENT lacks \(name)") }
    }

    /// Every event `--json` writes, and every field of it, is in the DocC article's schema: a
    /// field added to the stream without a word there fails here.
    @Test func theJSONSchemaArticleNamesEveryEventAndField() throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Fastget/Fastget.docc/CommandLineOutput.md"), encoding: .utf8)
        let data = testBytes(count: 2 << 20, seed: 27)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var lines: [Substring] = []
        // A download, then a port nothing listens on: an error.
        let refused = "http://127.0.0.1:\(try freeLoopbackPort())/f.bin"
        for url in [server.url(), refused] {
            let result = try runProcess(try fastgetExecutable(), ["--json", "-n", "2", "-o", "j.bin", url], in: directory.path, timeout: 60)
            lines += result.stdout.split(separator: "\n")
        }
        var seen: Set<String> = []
        var missing: Set<String> = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let event = try #require(object["event"] as? String)
            seen.insert(event)
            if !article.contains("| `\(event)` |") { missing.insert(event) }
            for key in object.keys where key != "event" && !article.contains("`\(key)`") { missing.insert("\(event).\(key)") }
        }
        #expect(seen.isSuperset(of: ["start", "progress", "done", "error"]), "\(seen)")
        #expect(missing.isEmpty, "the JSON schema (CommandLineOutput.md) lacks \(missing.sorted())")
    }

    /// The README's dependency line resolves today: no release is tagged, so it names a branch
    /// (a `from:` version would name a tag that does not exist).
    @Test func theREADMEsDependencyLineNamesABranchUntilReleasesAreTagged() throws {
        let readme = try Self.readme()
        #expect(readme.contains(".package(url: \"<this repository's URL>\", branch: \"main\")"), "README's .package line")
        #expect(!readme.contains("from: \""))
    }
}
