import FastgetTestSupport
import Foundation
import Testing

/// Bench is not a test, but it must not rot: run its quick mode and check that every scenario
/// produced a fastget cell without failures. No timing is asserted.
@Suite struct BenchSmokeTests {
    @Test func quickRunCoversEveryScenario() throws {
        let bench = try builtProduct("Bench")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let json = directory.file("bench.json")
        let result = try runProcess(bench, ["--quick", "--size", "8", "--json", json], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("scenario  peer      tool"))

        struct Document: Decodable {
            struct Cell: Decodable {
                let scenario: String
                let tool: String
                let segments: Int
                let failures: Int
                let mibps: Double
                let efficiency: Double?
            }
            let cells: [Cell]
        }
        let document = try JSONDecoder().decode(Document.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        let fastget = document.cells.filter { $0.tool == "fastget" }
        #expect(Set(fastget.map(\.scenario)) == ["raw", "raw-tls", "capped", "uneven", "tiny"])
        #expect(Set(fastget.map(\.segments)) == [1, 4])
        #expect(fastget.allSatisfy { $0.failures == 0 && $0.mibps > 0 })
        #expect(fastget.filter { $0.scenario == "capped" || $0.scenario == "uneven" }.allSatisfy { $0.efficiency != nil })
    }

    @Test func startupTimesTheVersionCommand() throws {
        let bench = try builtProduct("Bench")
        let result = try runProcess(bench, ["--startup", "3", "--fastget", try fastgetExecutable()], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.stdout.split(separator: "\n").last)
        #expect(summary.hasPrefix("median ") && summary.contains(" ms, p10 ") && summary.contains(" MiB"), "\(result.stdout)")
        #expect(try runProcess(bench, ["--startup", "0"]).status == 64)
    }

    @Test func rejectsUnknownOptions() throws {
        let bench = try builtProduct("Bench")
        let result = try runProcess(bench, ["--no-such-option"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Bench: unknown option '--no-such-option'"))
    }
}
