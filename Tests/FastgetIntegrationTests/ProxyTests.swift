import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Through a forward proxy: absolute-form requests for http, a CONNECT tunnel for https, proxy
/// authentication, and the hosts `no_proxy` sends around it. The CLI runs with an environment
/// holding only what each test sets.
@Suite struct ProxyTests {
    let data = testBytes(count: (2 << 20) + 9, seed: 91)

    func fastget(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory) throws -> ProcessResult {
        try runProcess(try fastgetExecutable(), arguments, in: directory.path, environment: environment, timeout: 60)
    }

    @Test func plainHTTPGoesThroughTheProxyFromTheEnvironment() throws {
        let server = try TestServer(file: TestFile(data))
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["-q", "-n", "2", "-o", "p.bin", server.url("/f.bin")], environment: ["http_proxy": proxy.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("p.bin")) == SHA256.hex(data))
        let lines = proxy.requests.map(\.requestLine)
        // Two ranges, the first of them the probe's own GET; every request in absolute form.
        #expect(lines.filter { $0 == "GET \(server.url("/f.bin")) HTTP/1.1" }.count >= 2, "\(lines)")
        #expect(lines.allSatisfy { $0 == "GET \(server.url("/f.bin")) HTTP/1.1" }, "\(lines)")
        // The origin server saw ordinary origin-form requests, forwarded.
        #expect(server.requests.allSatisfy { $0.target == "/f.bin" })
    }

    @Test func httpsIsTunnelledWithConnectAndCredentials() throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(tls: identity))
        let proxy = try TestProxy(credentials: "agent:s3cret")
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(
            [
                "-q", "-n", "2", "--cacert", identity.certificatePath, "--proxy", proxy.url(credentials: "agent:s3cret"),
                "-o", "s.bin", server.url("/f.bin"),
            ], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        let seen = proxy.requests
        #expect(!seen.isEmpty && seen.allSatisfy { $0.requestLine == "CONNECT 127.0.0.1:\(server.port) HTTP/1.1" })
        #expect(seen.allSatisfy { $0.proxyAuthorization == "Basic YWdlbnQ6czNjcmV0" })
        #expect(server.requests.count >= 2) // two ranges (the first the probe's) arrived, inside the tunnels
    }

    /// A 407 names the proxy with one message and hint, whether it answered a plain request
    /// (http through the proxy) or the CONNECT of a tunnel (https); never the origin.
    @Test func aProxyThatWantsCredentialsIsNamedTheSameWayForPlainAndTunnel() throws {
        let server = try TestServer(file: TestFile(data))
        let proxy = try TestProxy(credentials: "agent:s3cret")
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates)
        let tls = try TestServer(file: TestFile(data), TestServer.Configuration(tls: identity))
        let expected =
            "fastget: error: proxy 127.0.0.1:\(proxy.port) wants credentials (407)\n"
            + "hint: give them in the proxy URL: --proxy http://USER:PASS@127.0.0.1:\(proxy.port)\n"
        // https: the CONNECT is refused with 407.
        let tunnel = try fastget(["--cacert", identity.certificatePath, "--proxy", proxy.url(), tls.url("/f.bin")], in: directory)
        #expect(tunnel.status == 77)
        #expect(tunnel.stderr == expected)
        // http: the proxy's 407 is the answer to the request itself.
        let plain = try fastget(["--proxy", proxy.url(), server.url("/f.bin")], in: directory)
        #expect(plain.status == 77)
        #expect(plain.stderr == expected)
        // Wrong credentials: the hint says to check them.
        let wrong = try fastget(["--proxy", proxy.url(credentials: "agent:wrong"), server.url("/f.bin")], in: directory)
        #expect(wrong.status == 77)
        #expect(
            wrong.stderr == "fastget: error: proxy 127.0.0.1:\(proxy.port) wants credentials (407)\n"
                + "hint: it refused the user and password in the proxy URL; check them (--proxy http://USER:PASS@127.0.0.1:\(proxy.port))\n")
        #expect(server.requests.isEmpty && tls.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// A dead proxy (a stale http_proxy) is blamed, not the origin behind it.
    @Test func aProxyThatRefusesConnectionsIsNamed() throws {
        let server = try TestServer(file: TestFile(data))
        let port = try freeLoopbackPort() // bound, then closed: nothing listens there
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let expected =
            "fastget: error: connection refused by proxy 127.0.0.1:\(port)\n"
            + "hint: the proxy is set by --proxy (-x) or the http_proxy/https_proxy variables; --noproxy '*' goes direct\n"
        let stale = try fastget(["-o", "f.bin", server.url("/f.bin")], environment: ["http_proxy": "http://127.0.0.1:\(port)"], in: directory)
        #expect(stale.status == 69)
        #expect(stale.stderr == expected)
        let explicit = try fastget(["-x", "http://127.0.0.1:\(port)", "-o", "f.bin", "https://127.0.0.1:\(server.port)/f.bin"], in: directory)
        #expect(explicit.status == 69)
        #expect(explicit.stderr == expected)
        #expect(server.requests.isEmpty)
    }

    /// Plain http through a proxy that never answers, closes without answering, or answers
    /// 502 or 504: the proxy is named, as for a tunnel, never the origin it did not reach.
    @Test(arguments: [
        (TestResponse.hang, "sent no answer for URL within the timeout"),
        (.raw([]), "closed the connection without answering for URL"),
        (.status(502, body: "upstream down"), "answered 502 Status for URL"),
        (.status(504), "answered 504 Status for URL"),
    ])
    func aPlainProxyThatDoesNotAnswerIsNamed(answer: TestResponse, failure: String) throws {
        let server = try TestServer(file: TestFile(data))
        let proxy = try TestServer { _ in answer }
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = server.url("/f.bin")
        let result = try fastget(
            ["--retries", "0", "--timeout", "1", "-o", "f.bin", url], environment: ["http_proxy": proxy.url("/")], in: directory)
        #expect(result.status == 75, "\(result.stderr)")
        let hint =
            failure.hasPrefix("answered")
            ? "hint: the proxy got no usable answer from 127.0.0.1:\(server.port); the proxy is set by --proxy (-x) or the http_proxy/https_proxy variables; --noproxy '*' goes direct\n"
            : "hint: the proxy is set by --proxy (-x) or the http_proxy/https_proxy variables; --noproxy '*' goes direct\n"
        #expect(
            result.stderr == "fastget: error: proxy 127.0.0.1:\(proxy.port) \(failure.replacingOccurrences(of: "URL", with: url))\n" + hint,
            "\(result.stderr)")
        #expect(proxy.requests.first?.target == url, "the request went to the proxy, in absolute form")
        #expect(server.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(arguments: ["127.0.0.1", "*", "localhost,.example.com,127.0.0.1:1"])
    func noProxyHostsAreReachedDirectly(noProxy: String) throws {
        let server = try TestServer(file: TestFile(data))
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(
            ["-q", "-o", "d.bin", server.url("/f.bin")],
            environment: ["http_proxy": proxy.url(), "no_proxy": noProxy], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
        #expect(proxy.requests.isEmpty)
        // --noproxy on the command line does the same over an explicit --proxy.
        let explicit = try fastget(["-q", "--proxy", proxy.url(), "--noproxy", noProxy, "-o", "e.bin", server.url("/f.bin")], in: directory)
        #expect(explicit.status == 0 && proxy.requests.isEmpty)
    }

    @Test func anHTTPSProxyURLIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try fastget(["--proxy", "https://proxy.example:3128", "http://h/f"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderr == "fastget: error: proxy 'https://proxy.example:3128/' must be http:// (https is tunnelled through it)\n")
    }

    /// A proxy or URL that does not parse is printed without its user info: the password in
    /// `http://alice:s3cretPW@host:99999` must reach neither the terminal nor a `--json` log.
    @Test func aMalformedProxyOrURLIsPrintedWithoutItsPassword() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let explicit = try fastget(["--proxy", "http://alice:s3cretPW@127.0.0.1:99999", "http://h/f"], in: directory)
        #expect(explicit.status == 64)
        #expect(explicit.stderr == "fastget: error: invalid proxy 'http://***@127.0.0.1:99999': invalid port '99999'\n")
        let variable = try fastget(
            ["--json", "https://127.0.0.1:1/f.bin"], environment: ["https_proxy": "http://alice:s3cretPW@h:1080x/"], in: directory)
        #expect(variable.status == 64)
        #expect(variable.stdout.contains("invalid proxy 'http://***@h:1080x/' (from https_proxy)"), "\(variable.stdout)")
        let url = try fastget(["https://alice:s3cretPW@[::1/f.bin"], in: directory)
        #expect(url.status == 64)
        #expect(url.stderr == "fastget: error: invalid URL 'https://***@[::1/f.bin': unterminated IPv6 address in URL\n")
        for result in [explicit, variable, url] { #expect(!(result.stdout + result.stderr).contains("s3cretPW")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aMalformedProxyVariableOnlyStopsTheRequestsThatUseIt() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // https_proxy is unusable, but this download is plain http: it goes direct.
        let plain = try fastget(
            ["-q", "-o", "m.bin", server.url("/f.bin")], environment: ["https_proxy": "https://proxy.invalid:3128"], in: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        // An https download would use it: a usage error naming the variable.
        let tls = try fastget(
            ["-q", "-o", "t.bin", "https://127.0.0.1:1/f.bin"], environment: ["https_proxy": "https://proxy.invalid:3128"], in: directory)
        #expect(tls.status == 64)
        #expect(tls.stderr.hasPrefix("fastget: error: proxy 'https://proxy.invalid:3128/' (from https_proxy) must be http://"), "\(tls.stderr)")
    }
}
