import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// HTTP Digest authentication (RFC 7616) with `-u` and netrc, chosen when a 401 offers only
/// Digest over http, where no credentials go before a 401 names a scheme, and the hints a
/// 401 gets.
@Suite struct DigestAuthTests {
    let data = testBytes(count: (4 << 20) + 5, seed: 271)

    private func serve(_ guarding: DigestGuard) throws -> TestServer {
        let file = TestFile(data)
        return try TestServer { request in guarding.check(request) ?? .file(file) }
    }

    private func fastget(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
    }

    @Test(arguments: ["SHA-256", "MD5"])
    func aDigestOnlyServerGetsDigestOnEveryConnection(algorithm: String) throws {
        let guarding = DigestGuard(algorithm: algorithm)
        let server = try serve(guarding)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-q", "-n", "4", "-u", "Mufasa:Circle of Life", "-o", "d.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
        // Nothing first (no Basic in cleartext); after the one 401, every request answers it.
        let requests = server.requests
        #expect(requests.first?.header("Authorization") == nil)
        #expect(requests.dropFirst().allSatisfy { $0.header("Authorization")?.hasPrefix("Digest username=\"Mufasa\"") == true })
        #expect(requests.filter { $0.header("Range") != nil && $0.header("Range") != "bytes=0-" }.count >= 3, "segmented")
        // One nonce for the whole download, each use counted once, from 1.
        let counts = guarding.acceptedCounts
        #expect(counts.count == requests.count - 1)
        #expect(Set(counts) == Set((1...counts.count).map { String(format: "%08x", $0) }), "\(counts)")
    }

    @Test func netrcCredentialsAnswerDigestToo() throws {
        let server = try serve(DigestGuard(algorithm: "MD5"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let netrc = directory.file("netrc")
        try "machine 127.0.0.1 login Mufasa password \"Circle of Life\"\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        let result = try fastget(["-q", "--netrc-file", netrc, "-o", "n.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("n.bin")) == SHA256.hex(data))
    }

    /// A nonce that expires mid-download is answered `stale=true`: the next request answers
    /// the new nonce, counting from 1 again, and the download goes on.
    @Test func aStaleNonceIsRenewedMidDownload() throws {
        let guarding = DigestGuard(nonceUses: 1)
        let server = try serve(guarding)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-q", "-n", "4", "-u", "Mufasa:Circle of Life", "-o", "s.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        let nonces = Set(
            server.requests.compactMap { $0.header("Authorization")?.components(separatedBy: "nonce=").dropFirst().first?.prefix { $0 != "," } })
        #expect(nonces == ["\"nonce-1\"", "\"nonce-2\""], "\(nonces)")
        // The new nonce is counted from 1 again.
        #expect(guarding.acceptedCounts.filter { $0 == "00000001" }.count == 2, "\(guarding.acceptedCounts)")
    }

    @Test func aWrongPasswordFailsWithAHint() throws {
        let server = try serve(DigestGuard())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-u", "Mufasa:wrong", "-o", "w.bin", server.url()], in: directory)
        #expect(result.status == 77)
        #expect(
            result.stderr
                == "fastget: error: server answered 401 Status for \(server.url())\n"
                + "hint: the server refused user 'Mufasa' (HTTP Digest); check the user and password given (-u USER[:PASS], the URL or netrc)\n")
        // Nothing, then Digest once: a refused answer is not repeated.
        let sent = server.requests.map { $0.header("Authorization")?.prefix(6) }
        #expect(sent == [nil, "Digest"], "\(sent)")
    }

    /// A server over http that offers Basic and Digest gets Digest: the password never goes
    /// out readable when the server can take it hashed.
    @Test func digestIsChosenOverBasicWhenBothAreOffered() throws {
        let server = try serve(DigestGuard(offersBasic: true))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-q", "-u", "Mufasa:Circle of Life", "-o", "b.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(data))
        #expect(server.requests.first?.header("Authorization") == nil)
        #expect(server.requests.dropFirst().allSatisfy { $0.header("Authorization")?.hasPrefix("Digest ") == true })
        #expect(!server.requests.contains { $0.header("Authorization")?.hasPrefix("Basic") == true })
    }

    /// A CR, LF or NUL in the user name (quoted into a Digest answer, where it would end the
    /// field) is a usage error before any request, from `-u` or the URL's user info.
    @Test(arguments: [true, false])
    func aLineBreakInTheUserNameIsRefusedBeforeAnyRequest(inURL: Bool) throws {
        let server = try serve(DigestGuard())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = inURL ? "http://Muf%0D%0AX-Evil:%201:pw@127.0.0.1:\(server.port)/file.bin" : server.url()
        let result = try fastget((inURL ? [] : ["-u", "Muf\r\nX-Evil: 1:pw"]) + ["-o", "l.bin", url], in: directory)
        #expect(result.status == 64, "\(result.stderr)")
        let message = inURL ? "the user name in the URL" : "option -u"
        #expect(result.stderr.hasPrefix("fastget: error: \(message) must not contain a line break or NUL byte"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test func withoutCredentialsTheHintSaysWhatToGive() throws {
        let server = try serve(DigestGuard())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-o", "h.bin", server.url()], in: directory)
        #expect(result.status == 77)
        #expect(
            result.stderr
                == "fastget: error: server answered 401 Status for \(server.url())\n"
                + "hint: the server wants a user and password: -u USER[:PASS], or a machine line for the host in ~/.netrc with --netrc\n")
        #expect(server.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    /// Credentials stay with the URL's own origin: a 401 from where a redirect led says so.
    @Test func aRedirectElsewhereIsToldWhyNoCredentialsWent() throws {
        let elsewhere = try serve(DigestGuard())
        let server = try TestServer { _ in .redirect(status: 302, location: elsewhere.url("/r.bin")) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-u", "Mufasa:Circle of Life", "-o", "r.bin", server.url()], in: directory)
        #expect(result.status == 77)
        let origin = server.url("")
        #expect(
            result.stderr
                == "fastget: error: server answered 401 Status for \(elsewhere.url("/r.bin"))\n"
                + "hint: credentials go only to \(origin), not to another host a redirect leads to; give that URL to send them there\n")
        #expect(elsewhere.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    /// A scheme fastget does not speak is named, with or without credentials: -u would not help.
    @Test(arguments: [[], ["-u", "Mufasa:Circle of Life"]])
    func anAuthenticationSchemeItCannotAnswerIsNamed(credentials: [String]) throws {
        let server = try TestServer { _ in
            .status(401, fields: [("WWW-Authenticate", "Negotiate"), ("WWW-Authenticate", "Digest nonce=n, algorithm=SHA-512-256")])
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(credentials + ["-o", "x.bin", server.url()], in: directory)
        #expect(result.status == 77)
        #expect(
            result.stderr.hasSuffix(
                "hint: the server asks for negotiate or digest SHA-512-256, which fastget cannot answer (it speaks Basic, and Digest with MD5 or SHA-256)\n"
            ),
            "\(result.stderr)")
        #expect(server.requests.count == 1, "no Digest answer to an algorithm it does not know")
    }

    /// The hint names at most three of a server's schemes and none with a control character:
    /// a 401 with thousands of schemes, or a terminal escape, gets a one-line hint.
    @Test(arguments: [2_000, 2])
    func theHintNamesFewSchemesAndNoEscapes(count: Int) throws {
        let many = (1...count).map { "S\($0)" }.joined(separator: ", ")
        let server = try TestServer { _ in
            .status(401, fields: [("WWW-Authenticate", many + ", \u{1B}]0;owned\u{07}x, \u{1B}[2J")])
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-o", "x.bin", server.url()], in: directory)
        #expect(result.status == 77)
        let named = count > 2 ? "s1 or s2 or s3 or another scheme" : "s1 or s2 or another scheme"
        #expect(
            result.stderr.hasSuffix(
                "hint: the server asks for \(named), which fastget cannot answer (it speaks Basic, and Digest with MD5 or SHA-256)\n"),
            "\(result.stderr.prefix(400))")
        #expect(!result.stderr.utf8.contains(0x1B) && result.stderr.utf8.count < 400)
    }

    /// -u with the user's own Authorization field: the field, sent in the credentials' place,
    /// is what the server refused, not a redirect elsewhere.
    @Test func aRefusedAuthorizationFieldGivenWithHIsNamed() throws {
        let server = try serve(DigestGuard())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-u", "Mufasa:Circle of Life", "-H", "Authorization: Bearer x", "-o", "h.bin", server.url()], in: directory)
        #expect(result.status == 77)
        let origin = "http://127.0.0.1:\(server.port)"
        #expect(
            result.stderr.hasSuffix(
                "hint: the server refused the Authorization field given with -H, which replaces the credentials of -u, the URL or netrc on \(origin); check it, or drop it to send those\n"
            ), "\(result.stderr)")
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer x"])
    }
}
