import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Cookies through the built binary: a login that sets one and redirects to the file, curl's
/// `-b`, wget's and aria2's `--load-cookies`/`--save-cookies`, and where cookies never go
/// (another site, a mirror on another origin, the journal).
@Suite struct CommandLineCookieTests {
    let data = testBytes(count: (2 << 20) + 11, seed: 31)

    /// `/login` sets the session cookie and redirects to `/file.bin`, which is refused (403)
    /// without it: what aria2 and wget download.
    func loginServer(redirectTo target: (@Sendable () -> String)? = nil, rate: Double? = nil) throws -> TestServer {
        var configuration = TestServer.Configuration()
        if let rate { configuration.rate = { @Sendable (_: Int) -> Double? in rate } }
        return try TestServer(configuration) { [data] request in
            if request.target == "/login" {
                return .status(302, fields: [("Location", target?() ?? "/file.bin"), ("Set-Cookie", "sid=s3cret; Path=/; HttpOnly")])
            }
            guard request.header("Cookie")?.contains("sid=s3cret") == true else { return .status(403, body: "log in first") }
            return .file(TestFile(data))
        }
    }

    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
    }

    @Test func keepsTheCookieALoginSetsAcrossItsRedirectToTheFile() throws {
        let server = try loginServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "2", "-o", "out.bin", server.url("/login")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        let fileRequests = server.requests.filter { $0.target == "/file.bin" }
        #expect(fileRequests.filter { $0.header("Range") != nil }.count >= 2, "both segments asked for the file")
        #expect(fileRequests.allSatisfy { $0.header("Cookie") == "sid=s3cret" }, "\(fileRequests.map(\.raw))")
        #expect(server.requests.first { $0.target == "/login" }?.header("Cookie") == nil)
    }

    @Test func neverSendsACookieToAnotherSite() throws {
        let other = try CommandLineCookieTests.server(TestFile(data), address: "127.0.0.2")
        let server = try loginServer(redirectTo: { other.url("/file.bin") })
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "2", "-b", "given=1", "-o", "out.bin", server.url("/login")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(!other.requests.isEmpty)
        #expect(other.requests.allSatisfy { $0.header("Cookie") == nil }, "\(other.requests.map(\.raw))")
        #expect(server.requests.allSatisfy { $0.header("Cookie")?.hasPrefix("given=1") == true })
    }

    @Test func neverSendsACookieToAMirrorOnAnotherOrigin() throws {
        // The primary at 2 MiB/s a connection: the mirror's workers get their ranges before the
        // primary's could finish the file on its own (unpaced, on a fast machine, it sometimes
        // did, and the mirror saw no range request).
        let primary = try loginServer(rate: 2 * 1_048_576)
        let mirror = try TestServer(file: TestFile(data)) // the same host, another port
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The digest lets a mirror of another name (file.bin, not login) serve.
        let result = try run(
            ["-v", "-n", "4", "--checksum", "sha-256=" + SHA256.hex(data), "-o", "m.bin", primary.url("/login"), mirror.url()],
            in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        #expect(mirror.requests.contains { $0.header("Range") != nil }, "the mirror served ranges: \(result.stderr)")
        #expect(mirror.requests.allSatisfy { $0.header("Cookie") == nil }, "\(mirror.requests.map(\.raw))")
        let fileRequests = primary.requests.filter { $0.target == "/file.bin" }
        #expect(!fileRequests.isEmpty && fileRequests.allSatisfy { $0.header("Cookie") == "sid=s3cret" }, "\(primary.requests.map(\.raw))")
    }

    @Test func sendsTheCookiesOfDashBAsCurlDoes() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "1", "-b", "a=1; b=2", "--cookie", "c=3", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!server.requests.isEmpty)
        #expect(server.requests.allSatisfy { $0.header("Cookie") == "a=1; b=2; c=3" }, "\(server.requests.map(\.raw))")
    }

    @Test(arguments: ["-b", "--load-cookies"])
    func readsANetscapeCookieFileAndSavesWhatTheServerSets(option: String) throws {
        var file = TestFile(data)
        file.extraFields = ["Set-Cookie: fresh=new; Max-Age=3600", "Set-Cookie: old=; Max-Age=0", "Set-Cookie: session=1"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try """
        # Netscape HTTP Cookie File
        127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tfromfile
        127.0.0.1\tFALSE\t/\tFALSE\t0\told\tstale
        127.0.0.1\tFALSE\t/elsewhere\tFALSE\t0\tnarrow\tno
        other.example\tFALSE\t/\tFALSE\t0\tforeign\tno

        """.write(toFile: directory.file("in.txt"), atomically: true, encoding: .utf8)
        let result = try run(
            ["-q", "-n", "2", option, "in.txt", "--save-cookies", "jar.txt", "--keep-session-cookies", "-o", "out.bin", server.url()],
            in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.count >= 2)
        #expect(server.requests.first?.header("Cookie") == "sid=fromfile; old=stale")
        #expect(
            server.requests.dropFirst().allSatisfy { $0.header("Cookie") == "sid=fromfile; fresh=new; session=1" }, "\(server.requests.map(\.raw))")

        let saved = try String(contentsOfFile: directory.file("jar.txt"), encoding: .utf8)
        let lines = saved.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { $0[5] }.sorted() == ["foreign", "fresh", "narrow", "session", "sid"], "\(saved)")
        #expect(lines.first { $0[5] == "session" }?[4] == "0", "a session cookie is saved with 0, as curl does")
        let fresh = try #require(lines.first { $0[5] == "fresh" })
        #expect(fresh[0] == "127.0.0.1" && fresh[6] == "new")
        let expiry = try #require(Int(fresh[4]))
        #expect(abs(expiry - (Int(Date().timeIntervalSince1970) + 3600)) < 600)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.file("jar.txt"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["in.txt", "jar.txt", "out.bin"], "no temporary left behind")
    }

    @Test func neverWritesACookieToTheJournal() throws {
        var file = TestFile(data)
        file.extraFields = ["Set-Cookie: served=t0ken-from-server"]
        file.drop = DropPlan(afterBytes: 300_000, times: 100)
        // Slow enough that the second segment asks before the first is cut.
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 1_000_000 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "2", "--retries", "0", "-b", "given=s3cret", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 75, "\(result.stderr)")
        let journal = try Data(contentsOf: URL(fileURLWithPath: directory.file("out.bin.fastget")))
        #expect(
            server.requests.contains { $0.header("Cookie") == "given=s3cret; served=t0ken-from-server" }, "\(server.requests.map(\.raw))")
        for secret in ["s3cret", "t0ken-from-server", "given", "served"] {
            #expect(journal.range(of: Data(secret.utf8)) == nil, "\(secret) is in the journal")
        }
    }

    @Test(arguments: [
        (["--load-cookies", "missing.txt"], "cannot read missing.txt"),
        (["-b", "a=1\u{7}"], "option -b: the Cookie field contains a control character"),
        (["--save-cookies", ""], "option --save-cookies needs a file name"),
    ])
    func refusesABadCookieOptionBeforeAnyRequest(arguments: [String], message: String) throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(arguments + ["-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("fastget: error: \(message)"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test func cannotSaveIntoAMissingDirectory() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "--save-cookies", "no/such/jar.txt", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: cannot save the cookies to no/such/jar.txt: no directory no/such"), "\(result.stderr)")
        #expect(server.requests.isEmpty, "refused before downloading")
    }

    static func server(_ file: TestFile, address: String) throws -> TestServer {
        var configuration = TestServer.Configuration()
        configuration.ipv4Address = address
        return try TestServer(file: file, configuration)
    }
}

/// curl's `-e`/`--referer` (wget's `--referer`): one `Referer` on every request of the
/// download, the redirect's target on another origin included, as curl sends it.
@Suite struct CommandLineRefererTests {
    let data = testBytes(count: (1 << 20) + 5, seed: 37)

    @Test(arguments: ["-e", "--referer"])
    func sendsTheRefererWithEveryRequest(option: String) throws {
        let other = try TestServer(file: TestFile(data))
        let server = try TestServer { _ in .redirect(status: 302, location: other.url()) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), ["-q", option, "https://example.com/page", "-o", "out.bin", server.url("/go")],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let all = server.requests + other.requests
        #expect(!other.requests.isEmpty)
        #expect(all.allSatisfy { $0.fields.filter { $0.name.lowercased() == "referer" }.map(\.value) == ["https://example.com/page"] })
    }

    @Test(arguments: [
        (["-e", "robots=off"], "-e is curl's --referer here; wget's -e COMMAND ('robots=off') has no equivalent"),
        (["--referer", "http://a/\u{1}"], "option --referer: the Referer field contains a control character"),
    ])
    func refusesWhatIsNoReferer(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), arguments + ["http://127.0.0.1:9/f"], in: directory.path, timeout: 60)
        #expect(result.status == 64)
        #expect(result.stderr.contains("fastget: error: \(message)"), "\(result.stderr)")
    }
}
