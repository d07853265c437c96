import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `--netrc` / `--netrc-file`: credentials by host, curl's way; sent only to the URL's own
/// origin, never after a redirect elsewhere; a file others can read gets a warning.
@Suite struct NetrcTests {
    let data = testBytes(count: 1 << 20, seed: 151)

    @Test func parsesMachinesDefaultQuotesAndMacros() {
        let netrc = Netrc(
            """
            machine Files.Example.com login alice password "se cret\\"x"
            macdef init
            cd /pub
            password wrong

            default login anonymous password guest
            machine other.example login bob
            """)
        #expect(netrc.entry(for: "files.example.com") == Netrc.Entry(machine: "files.example.com", login: "alice", password: "se cret\"x"))
        #expect(netrc.entry(for: "other.example")?.login == "bob" && netrc.entry(for: "other.example")?.password == nil)
        #expect(netrc.entry(for: "elsewhere.example")?.login == "anonymous", "default")
    }

    @Test func credentialsGoToTheURLsHostOnly() throws {
        let file = TestFile(data)
        let guarding = BasicGuard(user: "alice", password: "s3cret")
        let elsewhere = try TestServer(file: file)
        let server = try TestServer { request in
            if request.target == "/moved" { return .redirect(status: 302, location: elsewhere.url("/f.bin")) }
            return guarding.check(request) ?? .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let netrc = directory.file("netrc")
        try "machine 127.0.0.1 login alice password s3cret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        let direct = try runProcess(try fastgetExecutable(), ["--netrc-file", netrc, "-o", "a.bin", server.url()], in: directory.path)
        #expect(direct.status == 0 && !direct.stderr.contains("warning"), "\(direct.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        // Redirected to another origin (another port): no credentials follow.
        let moved = try runProcess(try fastgetExecutable(), ["-q", "--netrc-file", netrc, "-o", "b.bin", server.url("/moved")], in: directory.path)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(elsewhere.requests.allSatisfy { $0.header("Authorization") == nil })
        chmod(netrc, 0o644)
        let open = try runProcess(
            try fastgetExecutable(), ["-q", "--overwrite", "--netrc-file", netrc, "-o", "a.bin", server.url()], in: directory.path)
        #expect(open.stderr.contains("fastget: warning: \(netrc) can be read by others"), "\(open.stderr)")
        let missing = try runProcess(try fastgetExecutable(), ["--netrc-file", directory.file("none"), server.url()], in: directory.path)
        #expect(missing.status == 64 && missing.stderr.contains("cannot read \(directory.file("none"))"), "\(missing.stderr)")
    }

    @Test func aCRLFNetrcSendsItsCredentials() throws {
        let file = TestFile(data)
        let guarding = BasicGuard(user: "alice", password: "s3cret")
        let server = try TestServer { request in guarding.check(request) ?? .file(file) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let netrc = directory.file("netrc")
        try "machine 127.0.0.1\r\nlogin alice\r\npassword s3cret\r\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        let result = try runProcess(try fastgetExecutable(), ["-q", "--netrc-file", netrc, "-o", "a.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        // Over http, Basic goes once the server's 401 asks for it.
        #expect(server.requests.first?.header("Authorization") == nil)
        #expect(server.requests.count > 1 && server.requests.dropFirst().allSatisfy { $0.header("Authorization") == guarding.expected })
    }

    @Test func aFIFOOrDeviceIsRefusedAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("netrc")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero"] {
            let result = try runProcess(
                try fastgetExecutable(), ["--netrc-file", path, "http://127.0.0.1:9/f"], in: directory.path, timeout: 20)
            #expect(result.status == 64 && result.stderr.hasPrefix("fastget: error: \(path) is not a regular file\n"), "\(result.stderr)")
        }
    }
}
