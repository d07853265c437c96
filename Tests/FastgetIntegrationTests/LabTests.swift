import FastgetTestSupport
import Testing

@testable import Bench

/// The network lab's pure parts: the profile table, the connection count from nginx's access
/// log, the report's lines and the shaper's commands. The lab itself needs root and runs by hand.
@Suite struct LabTests {
    @Test func profilesParseInTheOrderGiven() throws {
        #expect(try LabProfile.parse(nil).map(\.name).count == LabProfile.all.count)
        let chosen = try LabProfile.parse("lossy,loop-limit-rate")
        #expect(chosen.map(\.name) == ["lossy", "loop-limit-rate"])
        #expect(chosen[0].megabits == 100 && chosen[0].rttMilliseconds == 80 && chosen[0].loss == 0.005 && chosen[0].sizeMiB == 64)
        #expect(chosen[1].loopback == .nginx && chosen[1].cap == .limitRate("2m") && chosen[1].sizeMiB == 128)
        #expect(throws: HarnessFailure.self) { try LabProfile.parse("lossy,moon") }
        #expect(Set(LabProfile.all.map(\.name)).count == LabProfile.all.count)
    }

    @Test func everyCapHasItsOwnLocation() throws {
        let profiles = try LabProfile.parse("wan,shared,burst-cap,bucket,loop-limit-rate,loop-paced")
        #expect(profiles.map(\.location) == ["/plain/", "/plain/", "/limit-1m/", "/bucket-4m-1m/", "/limit-2m/", "/plain/"])
        #expect(profiles[3].nginxLocation(root: "/d") == "location /bucket-4m-1m/ { alias /d/; limit_rate_after 4m; limit_rate 1m; }")
        #expect(profiles[0].nginxLocation(root: "/d") == "location /plain/ { alias /d/;  }")
        #expect(profiles[5].nginxLocation(root: "/d") == nil)
    }

    /// Distinct connection serials, whatever the requests on each (a probe, ranges, a 416).
    @Test func connectionsAreDistinctSerialsInTheLog() {
        let log = """
            HEAD /plain/data.bin 200 "-" 0 7 1.0
            GET /plain/data.bin 206 "bytes=0-" 1000 7 1.1
            GET /plain/data.bin 206 "bytes=1000-1999" 1000 8 1.2
            GET /plain/data.bin 206 "bytes=2000-2999" 1000 9 1.3
            GET /plain/data.bin 206 "bytes=3000-3999" 1000 8 1.4
            truncated line
            """
        #expect(LabReport.connections(inLog: log.split(separator: "\n")) == 3)
        #expect(LabReport.connections(inLog: [Substring]()) == 0)
    }

    @Test func summaryComparesAutoWithBestFixedAndBestAnchor() {
        func cell(_ tool: String, _ segments: Int, _ seconds: [Double], connections: Int = 4) -> LabCell {
            LabCell(tool: tool, segments: segments, runs: seconds.map { LabRun(seconds: $0, connections: connections) })
        }
        var auto = cell("fastget", 0, [12, 10, 30], connections: 9)
        auto.runs.append(LabRun(seconds: 1, failure: "exit 75"))
        let cells = [
            auto, cell("fastget", 1, [40, 40, 40]), cell("fastget", 16, [8, 8, 9]),
            // Faster, but past the per-host cap that auto never passes; and one with a failed run.
            cell("fastget", 32, [6, 6, 6]), LabCell(tool: "fastget", segments: 8, runs: [LabRun(seconds: 1, failure: "exit 1")]),
            cell("axel", 16, [10, 11, 10]), cell("before", 0, [9, 9, 9]),
            LabCell(tool: "curl", segments: 1, runs: [LabRun(seconds: 5, killed: true, connections: 1)]),
        ]
        // The failed run counts in neither the median nor the worst; a killed one counts as its deadline.
        #expect(auto.median == 12 && auto.worst?.seconds == 30)
        #expect(
            LabReport.summary("lossy", cells)
                == "lossy: auto 12.00 s; best fixed (N <= 16) -n 16 8.00 s: median 1.50x, worst 3.75x; best anchor axel 10.00 s: 1.20x; auto opened 9 connections"
        )
        #expect(LabReport.row(cells[7], bytes: 64 << 20) == "  curl      -n 1     > 5 s       > 5 s        -        1")
        #expect(LabReport.row(cells[4], bytes: 64 << 20) == "  fastget   -n 8     failed: exit 1")
        #expect(
            LabReport.row(auto, bytes: 64 << 20)
                == "  fastget   auto     12.00 s     30.00 s      5.6      9  (1 of 4 runs failed: exit 75)")
    }

    /// A kernel cap: one HTB class, pfifo and hash-bucket filter per bucket of the client port.
    @Test func kernelCapShapesEveryHashBucket() throws {
        let wan = try #require(try LabProfile.parse("wan").first)
        let lines = LabNetwork.shaper(wan)
        #expect(lines.count == 2 + 2 + 2 + 256 * 3)
        #expect(lines[0].hasSuffix("htb default 2"))
        #expect(lines[1].contains("rate 100000000bit ceil 100000000bit"))
        // No leaf qdisc on the link class: it has children. 2 × BDP: 100 Mbit/s × 40 ms = 500 kB,
        // 330 packets, for what no filter matches.
        #expect(!lines.contains { $0.contains("parent 1:1 handle") })
        #expect(lines[3] == "qdisc add dev fgs0 parent 1:2 pfifo limit 660")
        // A leaf is guaranteed a 256th of the link and borrows up to the cap, so the sum of the
        // leaves never passes the link (leaves guaranteed the cap each would).
        #expect(lines.contains("class add dev fgs0 parent 1:1 classid 1:1ff htb rate 390625bit ceil 8000000bit quantum 1514"))
        #expect(lines.last == "filter add dev fgs0 parent 1: prio 1 protocol ip u32 ht 2:ff: match u32 0 0 flowid 1:1ff")
        let shared = try #require(try LabProfile.parse("shared").first)
        #expect(LabNetwork.shaper(shared).count == 3)
    }

    /// The lab's options belong to it (`--before` also to the many scenarios), and it makes its
    /// own servers.
    @Test func labOptionsConflicts() throws {
        let bench = try builtProduct("Bench")
        let stray = try runProcess(bench, ["--profiles", "wan"], timeout: 60)
        #expect(stray.status == 64 && stray.stderr == "Bench: --profiles and --trace belong to --lab\n", "\(stray.stderr)")
        // An earlier build beside this one: in the lab, or in the many scenarios only.
        let before = try runProcess(bench, ["--before", "/bin/true", "--scenarios", "raw"], timeout: 60)
        #expect(before.status == 64 && before.stderr == "Bench: --before belongs to --lab and the many scenarios\n", "\(before.stderr)")
        let nginx = try runProcess(bench, ["--lab", "--nginx"], timeout: 60)
        #expect(nginx.status == 64 && nginx.stderr == "Bench: --lab makes its own servers and links\n", "\(nginx.stderr)")
        let unknown = try runProcess(bench, ["--lab", "--profiles", "moon"], timeout: 60)
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("Bench: unknown profile 'moon'"), "\(unknown.stderr)")
    }
}
