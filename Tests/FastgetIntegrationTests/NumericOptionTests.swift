import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Numbers on the command line end up as `timeval`s, deadlines and token buckets: a huge one must
/// mean "no practical limit", never a trap or a zero; nonsense is a usage error.
@Suite struct NumericOptionTests {
    let data = testBytes(count: (2 << 20) + 17, seed: 41)

    @Test(arguments: [
        ["--timeout", "1e300"],
        ["--timeout", "1e400"], // beyond a Double: still just huge
        ["--connect-timeout", "1e300"],
        ["--checkpoint-interval", "1e300"],
        ["--limit-rate", "1e300"],
        ["--limit-rate", "9e18"],
        ["--timeout", "1e300", "--connect-timeout", "1e300", "--checkpoint-interval", "1e300", "--limit-rate", "1e300G"],
    ])
    func hugeNumbersMeanNoPracticalLimit(options: [String]) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "2"] + options + ["-o", "out.bin", server.url()],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: saved out.bin ("), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        // Two segments (an idle connection may steal more ranges, so at least two requests).
        #expect(server.requests.filter { $0.header("Range") != nil }.count >= 2)
    }

    @Test(arguments: [
        (["--timeout", "inf"], "option --timeout needs a number of seconds, at least 0.001, not 'inf'"),
        (["--timeout", "nan"], "option --timeout needs a number of seconds, at least 0.001, not 'nan'"),
        (["--timeout", "-1"], "option --timeout needs a number of seconds, at least 0.001, not '-1'"),
        (["--timeout", "0"], "option --timeout needs a number of seconds, at least 0.001, not '0'"),
        (["--timeout", "1e-300"], "option --timeout needs a number of seconds, at least 0.001, not '1e-300'"),
        (["--timeout=ten"], "option --timeout needs a number of seconds, at least 0.001, not 'ten'"),
        (["--connect-timeout", "Infinity"], "option --connect-timeout needs a number of seconds, at least 0.001, not 'Infinity'"),
        (["--connect-timeout", "-0"], "option --connect-timeout needs a number of seconds, at least 0.001, not '-0'"),
        (["--checkpoint-interval", "NaN"], "option --checkpoint-interval needs a number of seconds, at least 0.001, not 'NaN'"),
        (["--checkpoint-interval", "0.0001"], "option --checkpoint-interval needs a number of seconds, at least 0.001, not '0.0001'"),
        (["--limit-rate", "inf"], "option --limit-rate needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not 'inf'"),
        (["--limit-rate", "nanM"], "option --limit-rate needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not 'nanM'"),
        (["--limit-rate", "-1G"], "option --limit-rate needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not '-1G'"),
        (["--speed-limit", "0"], "option --speed-limit needs a rate of at least 1 byte per second, e.g. 500k or 4M, not '0'"),
        (["-Y", "-5"], "option -Y needs a rate of at least 1 byte per second, e.g. 500k or 4M, not '-5'"),
        (["--lowest-speed-limit=fast"], "option --lowest-speed-limit needs a rate of at least 1 byte per second, e.g. 500k or 4M, not 'fast'"),
        (["--speed-time", "0.5"], "option --speed-time needs a number of seconds from 1 to 86400, not '0.5'"),
        (["-y", "nan"], "option -y needs a number of seconds from 1 to 86400, not 'nan'"),
        // A limit never judged is no limit: inf and a huge number alike.
        (["-y", "inf"], "option -y needs a number of seconds from 1 to 86400, not 'inf'"),
        (["-y", "1e300"], "option -y needs a number of seconds from 1 to 86400, not '1e300'"),
        // Our own cap would hold the download below the floor: every run would fail.
        (
            ["--limit-rate", "10k", "--speed-limit", "100k"],
            "--speed-limit (102400 bytes/s) must be below --limit-rate (10240 bytes/s), or the download can only fail"
        ),
        (
            ["-Y", "1M", "--limit-rate=1M"],
            "--speed-limit (1048576 bytes/s) must be below --limit-rate (1048576 bytes/s), or the download can only fail"
        ),
        (["--retries", "99999999999999999999"], "option --retries needs a whole number, not '99999999999999999999'"),
        (["-n", "-3"], "option -n must be between 1 and 64 (got -3)"),
    ])
    func rejectsNonsenseWithExit64(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), options + ["http://127.0.0.1:9/f"], in: directory.path, timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr == "fastget: error: \(message)\nhint: see fastget --help\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
