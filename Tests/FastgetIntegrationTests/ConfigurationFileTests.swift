import FastgetTestSupport
import Foundation
import Testing

/// `$XDG_CONFIG_HOME/fastget/config`: long options, one per line; the command line wins;
/// `--no-config` skips it; a mistake names the file and the line.
@Suite struct ConfigurationFileTests {
    let data = testBytes(count: 3 << 20, seed: 141)

    func run(_ arguments: [String], config: String, in directory: TemporaryDirectory) throws -> ProcessResult {
        try FileManager.default.createDirectory(atPath: directory.file("config/fastget"), withIntermediateDirectories: true)
        try config.write(toFile: directory.file("config/fastget/config"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.file("config")
        return try runProcess(try fastgetExecutable(), arguments, in: directory.path, environment: environment)
    }

    func rangeRequests(_ server: TestServer) -> Int {
        server.requests.filter { $0.method == "GET" && $0.header("Range") != nil }.count
    }

    @Test func itsOptionsApplyAndTheCommandLineWins() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = "# defaults\nsegments = 2\nquiet\noverwrite = false\n\n"
        let first = try run(["-o", "a.bin", server.url()], config: config, in: directory)
        #expect(first.status == 0 && first.stderr.isEmpty, "quiet from the file: \(first.stderr)")
        #expect(rangeRequests(server) >= 2)
        // The done event's segments: the most connections at once.
        let second = try run(["--json", "-n", "3", "-o", "b.bin", server.url()], config: config, in: directory)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("\"segments\":3,"), "the command line wins: \(second.stdout.suffix(300))")
        let third = try run(["--json", "-o", "c.bin", server.url()], config: config, in: directory)
        #expect(third.stdout.contains("\"segments\":2,"), "the file's count: \(third.stdout.suffix(300))")
    }

    /// Fields the file gives are replaced by the command line's of the same name (`-A` for the
    /// User-Agent); the others still go.
    @Test func theCommandLinesFieldsReplaceTheFilesOfTheSameName() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = "header = User-Agent: from-file\nheader = Host: file.example\nheader = X-Team: file\nheader = X-Kept: yes\n"
        let result = try run(
            ["-A", "from-cli", "-H", "host: cli.example", "-H", "X-Team: cli", "-o", "a.bin", server.url()], config: config, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        for request in server.requests {
            let named = { (name: String) in request.fields.filter { $0.name.lowercased() == name }.map(\.value) }
            #expect(named("user-agent") == ["from-cli"] && named("host") == ["cli.example"], "\(request.raw)")
            #expect(named("x-team") == ["cli"] && named("x-kept") == ["yes"], "\(request.raw)")
        }
    }

    @Test func aMistakeNamesTheFileAndLineAndNoConfigSkipsIt() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("config/fastget/config")
        let unknown = try run([server.url()], config: "quiet\nsegmnts = 4\n", in: directory)
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("fastget: error: \(path):2: unknown option 'segmnts'"), "\(unknown.stderr)")
        let nameless = try run([server.url()], config: "# a comment\n=\n", in: directory)
        #expect(nameless.status == 64 && nameless.stderr.hasPrefix("fastget: error: \(path):2: no option before '='"), "\(nameless.stderr)")
        let bad = try run([server.url()], config: "segments = 99\n", in: directory)
        #expect(bad.status == 64 && bad.stderr.hasPrefix("fastget: error: \(path):1: option --segments "), "\(bad.stderr)")
        let skipped = try run(["-q", "--no-config", "-o", "c.bin", server.url()], config: "segmnts = 4\n", in: directory)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("c.bin")) == SHA256.hex(data))
    }

    @Test func aCRLFFileGivesExactlyItsValues() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = "user-agent = X\r\nsegments = 2\r\nheader = X-Trace: 7\r\nquiet\r\n"
        let result = try run(["-o", "a.bin", server.url()], config: config, in: directory)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        #expect(rangeRequests(server) >= 2)
        for request in server.requests {
            #expect(request.header("User-Agent") == "X" && request.header("X-Trace") == "7", "\(request.raw)")
            #expect(request.raw.hasSuffix("\r\n\r\n") && !request.raw.dropLast(4).contains("\r\n\r\n"), "\(request.raw)")
        }
        // The one-line file the issue found: the value is X, not X and a line end.
        server.clearRecords()
        let single = try run(["-q", "--overwrite", "-o", "a.bin", server.url()], config: "user-agent = X\r", in: directory)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(server.requests.allSatisfy { $0.header("User-Agent") == "X" })
    }

    @Test func aLineBreakInsideAValueNamesTheFileAndLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("config/fastget/config")
        let result = try run(["http://127.0.0.1:9/f"], config: "quiet\nuser-agent = x\rAuthorization: Bearer S\n", in: directory)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("fastget: error: \(path):2: option --user-agent must not contain a line break or NUL byte\n"), "\(result.stderr)")
        let nul = try run(["http://127.0.0.1:9/f"], config: "header = X-A: 1\u{0}\n", in: directory)
        #expect(nul.status == 64 && nul.stderr.hasPrefix("fastget: error: \(path):1: option --header must not contain "), "\(nul.stderr)")
    }

    @Test func aFIFOOrDeviceOrOversizeFileIsRefusedAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("config/fastget/config")
        try FileManager.default.createDirectory(atPath: directory.file("config/fastget"), withIntermediateDirectories: true)
        #expect(mkfifo(path, 0o600) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.file("config")
        let fifo = try runProcess(try fastgetExecutable(), ["http://127.0.0.1:9/f"], in: directory.path, environment: environment, timeout: 20)
        #expect(fifo.status == 64 && fifo.stderr.hasPrefix("fastget: error: \(path) is not a regular file\n"), "\(fifo.stderr)")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        let zero = try runProcess(try fastgetExecutable(), ["http://127.0.0.1:9/f"], in: directory.path, environment: environment, timeout: 20)
        #expect(zero.status == 64 && zero.stderr.hasPrefix("fastget: error: \(path) is not a regular file\n"), "\(zero.stderr)")
        let large = String(repeating: "# a comment line of sixty-four bytes, padded out to that length.\n", count: 1 << 14) + "quiet\n"
        let oversize = try run(["http://127.0.0.1:9/f"], config: large, in: directory)
        #expect(oversize.status == 64 && oversize.stderr.hasPrefix("fastget: error: \(path) is larger than 1 MiB\n"), "\(oversize.stderr)")
    }
}
