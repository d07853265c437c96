import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Runs the built `fastget` in a fresh directory.
private func fastget(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
    try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
}

@Suite struct CommandLineTests {
    let data = testBytes(count: (2 << 20) + 5, seed: 11)

    @Test func savesTheFileUnderItsURLNameAndExitsZero() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-n", "2", server.url("/dir/my%20file.bin")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("my file.bin")) == SHA256.hex(data))
        #expect(result.stderr.hasPrefix("fastget: saved my file.bin ("))
        #expect(result.stderr.contains("2 connections"))
        #expect(result.stdout.isEmpty)
        let quiet = try fastget(["-q", "-o", "q.bin", server.url()], in: directory)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        #expect(SHA256.hex(ofFile: directory.file("q.bin")) == SHA256.hex(data))
    }

    @Test func refusesToOverwriteWithoutBeingAsked() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: directory.file("file.bin")))
        let refused = try fastget([server.url()], in: directory)
        #expect(refused.status == 73)
        #expect(
            refused.stderr
                == "fastget: error: file.bin already exists\nhint: use --overwrite to replace it, -c to continue it, or -o FILE to save elsewhere\n")
        let replaced = try fastget(["--overwrite", server.url()], in: directory)
        #expect(replaced.status == 0)
        #expect(SHA256.hex(ofFile: directory.file("file.bin")) == SHA256.hex(data))
    }

    @Test func continuesAPartialFileWithDashC() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data.prefix(700_000)).write(to: URL(fileURLWithPath: directory.file("file.bin")))
        let result = try fastget(["-c", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: continuing file.bin from byte 700000\nfastget: saved file.bin ("))
        #expect(result.stderr.contains("resumed)"))
        #expect(SHA256.hex(ofFile: directory.file("file.bin")) == SHA256.hex(data))
        let again = try fastget(["-c", server.url()], in: directory)
        #expect(again.status == 0)
        // Its first 700,000 bytes were the user's, checked by nothing: the finished file gets
        // no completion mark, and the rerun does not call it complete as if it had one.
        #expect(again.stderr != "fastget: file.bin is already complete\n", "\(again.stderr)")
        #expect(FileSystem.attribute(directory.file("file.bin"), "user.fastget") == nil, "no mark at all")
    }

    @Test func reportsNotFoundWithExit66() throws {
        let server = try TestServer { _ in .status(404, body: "gone") }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget([server.url("/missing")], in: directory)
        #expect(result.status == 66)
        #expect(result.stderr == "fastget: error: server answered 404 Status for \(server.url("/missing"))\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func reportsARefusedConnectionWithExit69() throws {
        let port = try freeLoopbackPort()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["http://127.0.0.1:\(port)/f"], in: directory)
        #expect(result.status == 69)
        #expect(result.stderr == "fastget: error: connection refused by 127.0.0.1:\(port)\n")
    }

    @Test func reportsAnUnknownHostWithExit68() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["http://no-such-host.invalid/f"], in: directory)
        #expect(result.status == 68)
        #expect(result.stderr.hasPrefix("fastget: error: cannot resolve host 'no-such-host.invalid'"))
    }

    @Test(arguments: [
        (["ftp://example.com/f"], "fastget: error: invalid URL 'ftp://example.com/f': unsupported scheme 'ftp' (only http and https)\n"),
        (["http://[::1/"], "fastget: error: invalid URL 'http://[::1/': unterminated IPv6 address in URL\n"),
        (["http://host:99999/"], "fastget: error: invalid URL 'http://host:99999/': invalid port '99999'\n"),
        (["--bogus", "http://h/"], "fastget: error: unknown option '--bogus'\nhint: see fastget --help\n"),
        (["-n", "65", "http://h/"], "fastget: error: option -n must be between 1 and 64 (got 65)\nhint: see fastget --help\n"),
        (["-n", "x", "http://h/"], "fastget: error: option -n needs a whole number, not 'x'\nhint: see fastget --help\n"),
        (["-o"], "fastget: error: option -o needs a value\nhint: see fastget --help\n"),
        ([], "fastget: error: no URL given\nhint: see fastget --help\n"),
        (["--quiet=yes", "http://a/"], "fastget: error: option --quiet takes no value\nhint: see fastget --help\n"),
    ])
    func rejectsBadUsageWithExit64BeforeAnyNetworkAccess(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(arguments, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr == message)
    }

    @Test func helpListsEveryOptionAndExitCode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["--help"], in: directory)
        #expect(result.status == 0)
        for option in [
            "--segments", "--output", "--directory", "--overwrite", "--cacert", "--insecure",
            "--connect-timeout", "--timeout", "--retries", "--quiet", "--verbose", "--help", "--version",
            "--header", "--user-agent", "--user", "--limit-rate", "--checksum", "--json", "--proxy", "--noproxy",
            "--input-file", "--jobs", "--continue", "--checkpoint-interval",
        ] {
            #expect(result.stdout.contains(option), "help lacks \(option)")
        }
        for code in ["0 ", "64", "66", "68", "69", "73", "74", "75", "76", "77", "130"] {
            #expect(result.stdout.contains("\n  \(code)"), "help lacks exit code \(code)")
        }
        #expect(result.stdout.hasPrefix("Usage: fastget [options] URL [MIRROR-URL...]\n"))
        // An option per entry: every line of the options section names one, or goes on with its
        // description at the description's column, within 80 columns.
        let options = result.stdout.components(separatedBy: "Options:\n")[1].components(separatedBy: "\n\n")[0]
        let continuation = String(repeating: " ", count: 26) // CommandLineOption.descriptionColumn
        #expect(
            options.split(separator: "\n").allSatisfy { line in
                (line.drop { $0 == " " }.hasPrefix("-") || (line.hasPrefix(continuation) && line.dropFirst(continuation.count).first != " "))
                    && line.count <= 80
            }, "\(options)")
        // The map's symbols are explained where a user looks.
        let legend = result.stdout.components(separatedBy: "Progress map")[1].components(separatedBy: "\n\n")[0]
        #expect(["#  done", "=  receiving", ".  waiting", "<  receiving", "^  hedged", "!  stalled"].allSatisfy(legend.contains), "\(legend)")
    }

    @Test func versionNamesFastgetAndOpenSSL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["--version"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("fastget \(Fastget.version)\nOpenSSL 3."))
    }

    @Test func writesIntoTheGivenDirectory() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)
        let result = try fastget(["-d", "sub", "--segments=2", server.url("/x.bin")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("sub/x.bin")) == SHA256.hex(data))
    }

    @Test func verboseCountsConnectionsAndResumedTLSHandshakes() throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates, tls12Only: true)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(tls: identity))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-v", "-n", "2", "--cacert", identity.certificatePath, "-o", "v.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(data))
        // One full handshake (the probe); every later connection resumed its session. At least
        // one worker connection besides the probe's; whether the other segment gets its own is
        // the scheduler's call (a worker may take it on its kept connection).
        let line = try #require(result.stderr.split(separator: "\n").last.map(String.init))
        let words = line.split(separator: " ")
        let connections = try #require(Int(words[1]))
        #expect(connections == server.connectionCount && connections >= 2, "\(line)")
        #expect(line.hasPrefix("fastget: \(connections) connections opened (TLS handshakes: 1 full, \(connections - 1) resumed), "), "\(line)")
        #expect(line.contains(" won, ") && line.contains(" lost, ") && (line.hasSuffix(" retries") || line.hasSuffix(" 1 retry")), "\(line)")
        // The summary's count is another one, and says so: the most at once.
        // (Steals, when there were any, follow it.)
        let summary = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("fastget: saved v.bin (") })
        #expect(summary.contains(", 2 connections at once") || summary.contains(", 1 connection)"), "\(summary)")
    }

    @Test func sendsTheHeadersAgentAndCredentialsAsked() throws {
        let (file, guarding) = (TestFile(data), BasicGuard(user: "alice", password: "s3cret"))
        let server = try TestServer { request in guarding.check(request) ?? .file(file) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(
            [
                "-n", "2", "-H", "X-Trace: abc 1", "--header=Accept-Language: de", "-A", "probe/2.0",
                "-u", "alice:s3cret", "-o", "h.bin", server.url(),
            ], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("h.bin")) == SHA256.hex(data))
        let requests = server.requests
        #expect(requests.count >= 3)
        for request in requests {
            #expect(request.header("X-Trace") == "abc 1" && request.header("Accept-Language") == "de")
            #expect(request.header("User-Agent") == "probe/2.0")
        }
        // Over http, no password goes out before the server's 401 asks for Basic.
        #expect(requests.first?.header("Authorization") == nil)
        #expect(requests.dropFirst().allSatisfy { $0.header("Authorization") == "Basic YWxpY2U6czNjcmV0" })
    }

    @Test(arguments: [
        (["-H", "X-Bad: a\r\nInjected: 1", "http://h/"], "fastget: error: option -H must not contain a line break or NUL byte\n"),
        (["-H", "no colon", "http://h/"], "fastget: error: option -H needs 'Name: value', not 'no colon'\n"),
        (["-A", "x\r\nAuthorization: Bearer S", "http://h/"], "fastget: error: option -A must not contain a line break or NUL byte\n"),
        (["--user-agent=a\rb", "http://h/"], "fastget: error: option --user-agent must not contain a line break or NUL byte\n"),
        (["-H", "X: a\u{0B}b", "http://h/"], "fastget: error: option -H must not contain a control character\n"),
        (["-A", "a\u{7F}b", "http://h/"], "fastget: error: option -A must not contain a control character\n"),
        (
            ["-H", "Range: bytes=5-10", "http://h/"],
            "fastget: error: option -H: Range is fastget's to set: it asks for the byte ranges itself (segments, resume)\n"
        ),
        (
            ["-H", "Content-Length: 5", "http://h/"],
            "fastget: error: option -H: Content-Length is fastget's to set: its requests have no body, and a server would wait for one\n"
        ),
        (["-H", "Host:", "http://h/"], "fastget: error: option -H: Host cannot be removed: HTTP/1.1 requires it\n"),
        (
            ["--limit-rate", "10", "http://h/"],
            "fastget: error: option --limit-rate needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not '10'\n"
        ),
        (
            ["--limit-rate", "fast", "http://h/"],
            "fastget: error: option --limit-rate needs a rate of at least 1k bytes per second, e.g. 500k or 4M, not 'fast'\n"
        ),
        (["--checksum", "sha-256=abc", "http://h/"], "fastget: error: a sha-256 digest is 64 hex digits, not 'abc'\n"),
        (["-u", ":pw", "http://h/"], "fastget: error: option -u needs USER[:PASSWORD]\n"),
    ])
    func refusesMalformedRequestOptions(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(arguments, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr == message + "hint: see fastget --help\n")
    }

    @Test func limitRateHoldsTheWholeDownload() throws {
        let big = testBytes(count: 16 << 20, seed: 12)
        let server = try TestServer(file: TestFile(big))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let started = Date()
        let result = try fastget(["-q", "-n", "8", "--limit-rate", "4M", "-o", "r.bin", server.url()], in: directory)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(big))
        #expect(seconds >= 3, "16 MiB at 4 MiB/s took \(seconds) s")
    }

    @Test func aChecksumMismatchExits76AndKeepsThePartFile() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let wrong = "sha-256=" + String(repeating: "0", count: 64)
        let result = try fastget(["-q", "--checksum", wrong, "-o", "c.bin", server.url()], in: directory)
        #expect(result.status == 76)
        #expect(result.stderr.hasPrefix("fastget: error: sha-256 of c.bin.part is \(SHA256.hex(data)), not "), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["c.bin.part"])
        let right = try fastget(["-q", "--checksum", "sha-256=" + SHA256.hex(data), "-o", "c.bin", server.url()], in: directory)
        #expect(right.status == 0, "\(right.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("c.bin")) == SHA256.hex(data))
    }

    @Test func namesTheFileFromContentDispositionButNeverOutsideTheDirectory() throws {
        var file = TestFile(data)
        file.extraFields = ["Content-Disposition: attachment; filename=\"../../escape.bin\"; filename*=UTF-8''..%2F%C3%BCber.bin"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)
        let result = try fastget(["-n", "2", "-d", "sub", server.url("/download?id=7")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("sub")) == ["über.bin"])
        #expect(SHA256.hex(ofFile: directory.file("sub/über.bin")) == SHA256.hex(data))
        #expect(result.stderr.contains("saved sub/über.bin"), "\(result.stderr)")
        // -o wins over the server's name.
        let named = try fastget(["-q", "-o", "mine.bin", server.url("/download?id=7")], in: directory)
        #expect(named.status == 0 && FileManager.default.fileExists(atPath: directory.file("mine.bin")))
    }

    /// U+202E would make `evil\u{202E}gpj.exe` read as `evilexe.jpg` in a listing.
    @Test func dropsBidirectionalControlsFromTheServersName() throws {
        var file = TestFile(data)
        file.extraFields = ["Content-Disposition: attachment; filename*=UTF-8''evil%E2%80%AEgpj.exe"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-n", "2", server.url("/get?id=1")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["evilgpj.exe"])
        #expect(SHA256.hex(ofFile: directory.file("evilgpj.exe")) == SHA256.hex(data))
        #expect(result.stderr.hasPrefix("fastget: saved evilgpj.exe ("), "\(result.stderr)")
    }

    @Test func aNoContentAnswerSavesNothingAndExits66() throws {
        let server = try TestServer { _ in .status(204, body: "") }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-o", "n.bin", server.url("/n.bin")], in: directory)
        #expect(result.status == 66)
        #expect(result.stderr == "fastget: error: server answered 204 Status for \(server.url("/n.bin")): there is no file to save\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func neverLetsTheServerNameAHiddenFile() throws {
        var dotted = TestFile(data)
        dotted.extraFields = ["Content-Disposition: attachment; filename=\".bashrc\""]
        var onlyDots = TestFile(data)
        onlyDots.extraFields = ["Content-Disposition: attachment; filename=\"..\"; filename*=UTF-8''..."]
        let server = try TestServer { [dotted, onlyDots] request in .file(request.target.hasPrefix("/dots") ? onlyDots : dotted) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-n", "2", server.url("/get?f=rc")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: saved bashrc ("), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bashrc"])
        #expect(SHA256.hex(ofFile: directory.file("bashrc")) == SHA256.hex(data))
        // Nothing left of the server's name: the URL's names the file.
        let fallback = try fastget(["-q", server.url("/dots/report.bin")], in: directory)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("report.bin")) == SHA256.hex(data))
        // A dot file the user asked for by URL keeps its name.
        let asked = try fastget(["-q", server.url("/dots/.hidden")], in: directory)
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [".hidden", "bashrc", "report.bin"])
    }
}

/// `-v`: every request, retry and checkpoint as its own line.
@Suite struct VerboseOutputTests {
    @Test func logsRequestsRetriesAndCheckpoints() throws {
        let data = testBytes(count: 2 << 20, seed: 14)
        var file = TestFile(data)
        file.drop = DropPlan(afterBytes: 200_000, times: 1)
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 2 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-v", "-n", "2", "--checkpoint-interval", "0.2", "-o", "v.bin", server.url()],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "fastget: > GET \(server.url()) (bytes=0-)", "\(lines)")
        #expect(lines.contains("fastget: > GET \(server.url()) (bytes=1048576-2097151)"))
        #expect(lines.contains { $0.hasPrefix("fastget: retry 1: ") })
        #expect(lines.contains { $0.hasPrefix("fastget: checkpoint: ") && $0.hasSuffix(" on disk") })
        #expect(lines.contains { $0.hasPrefix("fastget: saved v.bin") })
        #expect(SHA256.hex(ofFile: directory.file("v.bin")) == SHA256.hex(data))
    }
}

/// What people see: a redrawn display on a terminal, plain lines in a pipe.
@Suite struct ProgressOutputTests {
    let data = testBytes(count: 4 << 20, seed: 13)

    @Test func aTerminalGetsRedrawsAndASummary() throws {
        guard let script = findExecutable("script") else { Issue.record("script(1) is missing"); return }
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let command = "COLUMNS=100 '\(try fastgetExecutable())' -n 4 -o t.bin '\(server.url())'"
        let result = try runProcess(script, ["-qec", command, "/dev/null"], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(SHA256.hex(ofFile: directory.file("t.bin")) == SHA256.hex(data))
        let output = result.stdout
        // Redrawn in place: the cursor goes back up over the segment map, many times.
        #expect(
            output.components(separatedBy: "\u{1B}[2A").count > 5 || output.components(separatedBy: "\u{1B}[1A").count > 5,
            "\(output.debugDescription.prefix(400))")
        #expect(output.contains("4/4 segments") && output.contains("[===="))
        #expect(output.contains("fastget: saved t.bin (4.00 MiB in "))
    }

    @Test func aPipeGetsPlainLinesAndASummary() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-n", "1", "-o", "p.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(lines.count >= 2)
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("fastget: ") && $0.contains("% ") && $0.contains("MiB of 4.00 MiB") }, "\(lines)")
        #expect(lines.last?.hasPrefix("fastget: saved p.bin (4.00 MiB in ") == true)
    }
}
