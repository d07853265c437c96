import FastgetTestSupport
import Foundation
import Testing

@Suite struct EmbedderExampleTests {
    @Test func queuesThreeDownloadsPrintsProgressAndReportsTheFailure() throws {
        let files = (0..<2).map { testBytes(count: 512 * 1024, seed: UInt64(200 + $0)) }
        let server = try TestServer(TestServer.Configuration(rate: { _ in 4 * 1_048_576 })) { request in
            switch request.target {
            case "/a.bin": .file(TestFile(files[0]))
            case "/b.bin": .file(TestFile(files[1]))
            default: .status(404)
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = Shared<[String]>([])
        let failures = try downloadAll(
            [server.url("/a.bin"), server.url("/b.bin"), server.url("/gone.bin")],
            into: directory.path
        ) { line in lines.withLock { $0.append(line) } }
        #expect(failures == 1)
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(files[0]))
        #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(files[1]))
        let printed = lines.current
        #expect(printed.contains { $0.hasPrefix(directory.file("a.bin") + ": done, 524288 bytes in ") })
        #expect(printed.contains { $0.contains("of 524288 bytes") })
        #expect(
            printed.contains { $0.hasSuffix("/gone.bin: failed (not-found): server answered 404 Status for \(server.url("/gone.bin"))") })
    }
}
