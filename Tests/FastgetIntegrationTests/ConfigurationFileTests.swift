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
}
