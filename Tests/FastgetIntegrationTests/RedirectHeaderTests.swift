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

/// `-H` for a field fastget sends replaces fastget's, `-H 'Name:'` removes it (curl's rules):
/// the server sees each field once. A `Host` of the user's goes to the origin given only.
@Suite struct ReplacedHeaderTests {
    let data = testBytes(count: (2 << 20) + 3, seed: 29)

    /// How many lines of `request`'s head name the field `name`.
    func count(_ name: String, in request: RecordedRequest) -> Int {
        request.fields.filter { $0.name.lowercased() == name.lowercased() }.count
    }

    @Test func theUsersFieldsReplaceOrRemoveFastgetsAndHostStaysWithItsOrigin() throws {
        let other = try TestServer(file: TestFile(data))
        let server = try TestServer { [data] request in
            request.target == "/elsewhere" ? .redirect(status: 302, location: other.url("/file.bin")) : .file(TestFile(data))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fields = [
            "-H", "Host: files.example", "-A", "by-A", "-H", "user-agent: by-H", "-H", "Accept-Encoding:", "-H", "Accept: application/x",
            "-H", "X-Empty:",
        ]
        let direct = try runProcess(
            try fastgetExecutable(), ["-n", "2"] + fields + ["-o", "a.bin", server.url()], in: directory.path, timeout: 60)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        #expect(server.requests.contains { $0.header("Range") != nil })
        for request in server.requests {
            #expect(count("Host", in: request) == 1 && request.header("Host") == "files.example", "\(request.raw)")
            #expect(count("User-Agent", in: request) == 1 && request.header("User-Agent") == "by-H", "\(request.raw)")
            #expect(count("Accept", in: request) == 1 && request.header("Accept") == "application/x", "\(request.raw)")
            #expect(count("Accept-Encoding", in: request) == 0 && count("X-Empty", in: request) == 0, "\(request.raw)")
        }
        // Redirected to another origin: that one gets its own name, once; the rest as asked.
        let moved = try runProcess(
            try fastgetExecutable(), ["-n", "2"] + fields + ["-o", "b.bin", server.url("/elsewhere")], in: directory.path, timeout: 60)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(data))
        let authority = other.url("").replacingOccurrences(of: "http://", with: "")
        #expect(other.requests.contains { $0.header("Range") != nil })
        for request in other.requests {
            #expect(count("Host", in: request) == 1 && request.header("Host") == authority, "\(request.raw)")
            #expect(count("User-Agent", in: request) == 1 && request.header("User-Agent") == "by-H", "\(request.raw)")
        }
    }

    /// A field fastget sends, given twice: the last value given is sent, once (`Host` too).
    @Test func theLastValueOfAFieldFastgetSendsWins() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fields = ["-H", "User-Agent: a", "-H", "user-agent: b", "-H", "Host: h1", "-H", "host: h2", "-H", "X-Both: 1", "-H", "X-Both: 2"]
        let result = try runProcess(
            try fastgetExecutable(), ["-n", "2"] + fields + ["-o", "a.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
        #expect(server.requests.contains { $0.header("Range") != nil })
        for request in server.requests {
            #expect(count("User-Agent", in: request) == 1 && request.header("User-Agent") == "b", "\(request.raw)")
            #expect(count("Host", in: request) == 1 && request.header("Host") == "h2", "\(request.raw)")
            #expect(count("X-Both", in: request) == 2, "a field of the user's own goes as given: \(request.raw)")
        }
    }
}
