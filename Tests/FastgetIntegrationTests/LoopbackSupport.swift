@testable import Fastget
import FastgetTestSupport

/// Downloads `url` into a fresh directory with `configure`d options (the loopback suites
/// LoopbackDownloadTests, RangeAnswerTests, RedirectTests and ServerFailureTests).
func download(_ url: String, segments: Int = 4, configure: (inout DownloadOptions) -> Void = { _ in })
    throws -> (report: Result<DownloadReport, FastgetError>, directory: TemporaryDirectory, output: String)
{
    let directory = try TemporaryDirectory()
    var options = DownloadOptions()
    options.segments = segments
    options.minimumSegmentSize = 64 * 1024
    options.output = directory.file("out.bin")
    options.ioTimeout = .seconds(10)
    options.connectionTimeout = .seconds(5)
    // These tests assert the exact requests of a plan; stealing has tests of its own.
    options.stealsWork = false
    options.hedgesTails = false
    configure(&options)
    let download = try Download(url: url, options: options)
    let result: Result<DownloadReport, FastgetError>
    do throws(FastgetError) { result = .success(try download.run()) } catch { result = .failure(error) }
    return (result, directory, options.output!)
}

/// Runs `body` as synchronous code: how an async test calls the blocking API (`run()`,
/// `dryRun()`, `waitUntilIdle()`), which is unavailable from async contexts.
func blocking<T>(_ body: () throws -> T) rethrows -> T { try body() }
