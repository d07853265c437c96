import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-H 'Authorization: …'` and `-H 'Cookie: …'` are credentials for the site the user named: a
/// redirect to another origin must not hand them over (curl drops them too).
@Suite struct RedirectHeaderTests {
    let data = testBytes(count: (2 << 20) + 9, seed: 23)
    static let arguments = ["-n", "2", "-H", "authorization: Bearer t0ken", "-H", "Cookie: session=s3cret", "-H", "X-Trace: 7"]

    @Test func keepsAuthorizationAndCookieFromDashHToTheOriginGiven() throws {
        let other = try TestServer(file: TestFile(data))
        let server = try TestServer { [data] request in
            request.target == "/elsewhere" ? .redirect(status: 302, location: other.url("/file.bin")) : .file(TestFile(data))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), RedirectHeaderTests.arguments + ["-o", "out.bin", server.url("/elsewhere")],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))

        let asked = server.requests
        #expect(!asked.isEmpty)
        #expect(asked.allSatisfy { $0.header("Authorization") == "Bearer t0ken" && $0.header("Cookie") == "session=s3cret" })
        let redirected = other.requests
        #expect(redirected.contains { $0.header("Range") != nil }, "the segments were fetched from the redirect target")
        for request in redirected {
            #expect(request.header("Authorization") == nil && request.header("Cookie") == nil, "\(request.raw)")
            #expect(request.header("X-Trace") == "7", "other -H fields still go everywhere")
        }
    }

    @Test func keepsThemOnARedirectWithinTheSameOrigin() throws {
        let server = try TestServer { [data] request in
            request.target == "/here" ? .redirect(status: 301, location: "/file.bin") : .file(TestFile(data))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(
            try fastgetExecutable(), RedirectHeaderTests.arguments + ["-o", "out.bin", server.url("/here")],
            in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        let requests = server.requests
        #expect(requests.filter { $0.target == "/file.bin" && $0.header("Range") != nil }.count >= 2)
        #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer t0ken" && $0.header("Cookie") == "session=s3cret" })
    }
}
