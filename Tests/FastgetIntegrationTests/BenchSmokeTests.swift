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
        #expect(result.stdout.contains("scenario    peer      tool"))

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

    /// The many scenario: a list of small files, every one checked by size and sha-256 by Bench
    /// (a wrong file fails the run, and a failed fastget run fails Bench).
    @Test func manyScenarioDownloadsAList() throws {
        let bench = try builtProduct("Bench")
        let result = try runProcess(bench, ["--scenarios", "many", "--files", "20", "--parallel", "4", "--repetitions", "1"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let row = result.stdout.split(separator: "\n").first { $0.hasPrefix("many ") && $0.contains(" fastget ") }
        #expect(row?.contains(" files/s") == true && row?.contains("failed") == false, "\(result.stdout)")
    }

    /// The mirrors scenarios: one file from two servers, one of them stopping mid-run; fastget
    /// must finish every run (a failed fastget run fails Bench) and get an efficiency.
    @Test func mirrorsScenariosFinishWhenAServerDies() throws {
        let bench = try builtProduct("Bench")
        let result = try runProcess(bench, ["--quick", "--scenarios", "mirrors,mirrors-dying"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("mirrors") && $0.contains(" fastget ") }
        #expect(rows.count == 2 && rows.allSatisfy { $0.contains("%") && !$0.contains("failed") }, "\(result.stdout)")
    }

    /// --rtt: a 1 KiB download costs at least the connection's round trip and the response's.
    @Test func roundTripTimeSlowsTiny() throws {
        let bench = try builtProduct("Bench")
        let result = try runProcess(bench, ["--scenarios", "tiny", "--rtt", "20", "--repetitions", "1"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("peer: embedded (rtt 20 ms)"), "\(result.stdout)")
        let row = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("tiny ") && $0.contains(" fastget ") })
        let milliseconds = row.split(separator: " ").firstIndex(of: "ms").flatMap { Double(row.split(separator: " ")[$0 - 1]) }
        #expect((milliseconds ?? 0) >= 40, "\(row)")
        let refused = try runProcess(bench, ["--nginx", "--rtt", "20"])
        #expect(refused.status == 64)
        #expect(refused.stderr == "Bench: --rtt works with the embedded server only, not with --nginx\n", "\(refused.stderr)")
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
