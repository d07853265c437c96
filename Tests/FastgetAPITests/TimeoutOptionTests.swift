import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Timeouts and intervals an embedder sets: infinity and 1e300 mean no practical limit; NaN or
/// zero is a usage error.
@Suite struct TimeoutOptionTests {
    let data = testBytes(count: (1 << 20) + 3, seed: 5)

    @Test func infiniteAndHugeTimeoutsDownloadNormally() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        options.timeout = .infinity
        options.connectTimeout = 1e300
        options.checkpointInterval = .infinity
        options.progressInterval = 1e300
        let report = try Download(url: server.url("/f.bin"), options: options).run()
        #expect(report.workers == 2)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test(arguments: [
        ("timeout", Double.nan), ("timeout", 0), ("connectTimeout", -1), ("connectTimeout", .nan),
        ("checkpointInterval", .nan), ("checkpointInterval", -.infinity), ("progressInterval", .nan),
        ("progressInterval", 0),
    ])
    func nanOrNonPositiveIsAUsageError(name: String, value: Double) throws {
        var options = DownloadOptions()
        switch name {
        case "timeout": options.timeout = value
        case "connectTimeout": options.connectTimeout = value
        case "checkpointInterval": options.checkpointInterval = value
        default: options.progressInterval = value
        }
        #expect {
            try Download(url: "http://127.0.0.1:9/f", options: options)
        } throws: { error in
            (error as? FastgetError)?.exitCode == 64
        }
    }
}
