import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `await dryRun()`: the probe and the plan from async code, without blocking its thread.
@Suite struct AsyncDryRunTests {
    @Test func anAwaitedDryRunPlansWithoutWriting() async throws {
        let data = testBytes(count: 1 << 20, seed: 2830)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/p.bin"), options: testOptions(directory, segments: 4))
        let plan = try await within(30) { try await download.dryRun() }
        #expect(plan.resource.length == Int64(data.count))
        #expect(plan.destination == directory.file("p.bin"))
        #expect(plan.ranges.count == 4 && plan.ranges.reduce(0) { $0 + $1.count } == Int64(data.count))
        #expect(download.state == .queued)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written")
    }
}
