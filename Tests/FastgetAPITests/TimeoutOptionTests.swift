import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Times an embedder sets, as `Duration`s: nil means no limit; zero or less is a usage error.
/// The earlier `Double` seconds still work: infinity and 1e300 mean no limit, NaN is refused.
@Suite struct TimeoutOptionTests {
    let data = testBytes(count: (1 << 20) + 3, seed: 5)

    @Test func noLimitsDownloadNormally() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        (options.ioTimeout, options.connectionTimeout, options.checkpointPeriod) = (nil, nil, nil)
        options.progressPeriod = .seconds(86_400 * 365)
        let report = try Download(url: server.url("/f.bin"), options: options).run()
        #expect(report.workers == 2)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test(arguments: ["ioTimeout", "connectionTimeout", "checkpointPeriod", "progressPeriod", "speedWindow"], [Duration.zero, .seconds(-1)])
    func zeroOrLessIsAUsageError(name: String, value: Duration) throws {
        var options = DownloadOptions()
        switch name {
        case "ioTimeout": options.ioTimeout = value
        case "connectionTimeout": options.connectionTimeout = value
        case "checkpointPeriod": options.checkpointPeriod = value
        case "speedWindow": options.speedWindow = value
        default: options.progressPeriod = value
        }
        #expect {
            try Download(url: "http://127.0.0.1:9/f", options: options)
        } throws: { error in
            (error as? FastgetError)?.code == .usage
        }
    }

    /// The earlier `Double` properties map onto the durations: infinity and numbers beyond a
    /// duration are no limit, NaN and zero are refused, and nothing traps.
    @available(*, deprecated, message: "uses the options' earlier Double seconds on purpose")
    @Test func theEarlierSecondsStillWork() throws {
        var options = DownloadOptions()
        options.timeout = .infinity
        options.connectTimeout = 1e300
        options.checkpointInterval = .infinity
        options.progressInterval = 0.25
        #expect(options.ioTimeout == nil && options.connectionTimeout == nil && options.checkpointPeriod == nil)
        #expect(options.progressPeriod == .milliseconds(250) && options.timeout == .infinity)
        options.speedTime = 5
        #expect(options.speedWindow == .seconds(5) && options.speedTime == 5)
        #expect(throws: Never.self) { try Download(url: "http://127.0.0.1:9/f", options: options) }
        for refused: (inout DownloadOptions) -> Void in [
            { $0.timeout = .nan }, { $0.connectTimeout = 0 }, { $0.checkpointInterval = -.infinity },
            { $0.progressInterval = .nan }, { $0.speedTime = 1e300 }, { $0.speedTime = 0.5 },
        ] {
            var changed = DownloadOptions()
            refused(&changed)
            #expect { try Download(url: "http://127.0.0.1:9/f", options: changed) } throws: { ($0 as? FastgetError)?.code == .usage }
        }
        #expect(DownloadOptions.speedTimeRange == 1...86_400)
    }
}

/// A duration beyond what any clock could count (more seconds than an Int64 holds) is no
/// practical limit, as infinity was: the download runs, nothing traps.
@Suite struct HugeDurationTests {
    @Test func aDurationBeyondInt64SecondsIsNoPracticalLimit() throws {
        let data = testBytes(count: 200_000, seed: 6)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 2)
        let huge = Duration.seconds(Int64.max) * 4
        (options.ioTimeout, options.connectionTimeout, options.checkpointPeriod) = (huge, huge, huge)
        options.progressPeriod = huge
        try Download(url: server.url("/f.bin"), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }
}
