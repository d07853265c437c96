import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-n` on a resumed download applies: what is left is split again.
@Suite struct ResumeCountTests {
    @Test func aDownloadBegunWithTwoConnectionsResumesWithEight() throws {
        let data = testBytes(count: 16 << 20, seed: 98)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("r.bin")
        options.segments = 2
        let first = try Download(url: server.url(), options: options)
        first.onEvent { event in
            if case .progress(let progress) = event, progress.completedBytes >= 1 << 20 { first.pause() }
        }
        #expect(throws: FastgetError.self) { try first.run() }
        #expect(FileManager.default.fileExists(atPath: directory.file("r.bin.fastget")))
        options.segments = 8
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(report.resumedBytes > 0)
        #expect(report.workers == 8, "\(report.workers) connections")
    }
}
