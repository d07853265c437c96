import Fastget
import FastgetTestSupport
import Foundation
import Testing

@Suite struct ResilienceTests {
    let data = testBytes(count: 1 << 20, seed: 41)

    @Test func honoursRetryAfterOnABusyServer() throws {
        let busy = DropPlan(afterBytes: 0, times: 1)   // used only as a one-shot flag
        let file = TestFile(data)
        let server = try TestServer { request in
            if request.method == "GET" && busy.take() {
                return .status(503, body: "busy", fields: [("Retry-After", "1")])
            }
            return .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 1
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.retries == 1)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.count == 2)
        // The retry waited for the second the server asked for, not the 0.25 s back-off.
        #expect(gets[1].received - gets[0].received >= 0.95, "\(gets[1].received - gets[0].received) s")
    }

    @Test func refusesAFileLargerThanTheFreeSpaceBeforeFetchingIt() throws {
        var huge = TestFile([])
        huge.content = .file(path: "/dev/null", length: 10 << 40)   // a server announcing 10 TiB
        let server = try TestServer(file: huge)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("huge.iso")
        #expect {
            try Download(url: server.url(), options: options).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.exitCode == 74 && error.message.hasPrefix("not enough space for \(directory.file("huge.iso")): it needs 10.0 TiB")
        }
        #expect(server.requests.map(\.method) == ["HEAD"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
