import FastgetTestSupport
import Foundation
import Testing

/// URLs signed for GET only (S3 presigned URLs, CDN tokens) answer HEAD with 403; the probe
/// then asks with a ranged GET, and only that answer decides.
@Suite struct SignedURLProbeTests {
    let data = testBytes(count: 4 << 20, seed: 95)

    /// A server that answers HEAD with `headStatus` and GET with the file (or `getStatus`).
    func server(headStatus: Int, getStatus: Int? = nil) throws -> TestServer {
        let file = TestFile(data)
        return try TestServer { request in
            if request.method == "HEAD" { return .status(headStatus, body: "") }
            if let getStatus { return .status(getStatus, body: "<Error>AccessDenied</Error>") }
            return .file(file)
        }
    }

    @Test(arguments: [403, 400, 500, 503])
    func aRefusedHEADFallsBackToARangedGET(status: Int) throws {
        let server = try server(headStatus: status)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // -c on a prefix: the HEAD probe runs (it needs the file's identity before any byte).
        try Data(data.prefix(1 << 20)).write(to: URL(fileURLWithPath: directory.file("s.bin")))
        let result = try runProcess(
            try fastgetExecutable(), ["-q", "--retries", "0", "-c", "-o", "s.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        let requests = server.requests.map { "\($0.method) \($0.header("Range") ?? "")" }
        #expect(Array(requests.prefix(2)) == ["HEAD ", "GET bytes=0-0"], "\(requests)")
        // And -o -, which probes with HEAD too.
        let shell = try #require(findExecutable("sh"))
        let stream = try runProcess(
            shell, ["-c", "\"$0\" -q --retries 0 -o - \"$1\" | sha256sum", try fastgetExecutable(), server.url()], in: directory.path,
            timeout: 60)
        #expect(stream.status == 0 && stream.stdout.hasPrefix(SHA256.hex(data)), "\(stream.stderr)")
    }

    @Test func theGETStartsFromTheURLGivenNotFromWhereTheHEADWasSent() throws {
        // HEAD alone is redirected, to a page that refuses it and answers GET with a 200 page:
        // the fallback GET asks the URL given, and gets the file.
        let file = TestFile(data)
        let server = try TestServer { request in
            switch (request.method, request.target) {
            case ("HEAD", "/f"): return .redirect(status: 302, location: "/denied")
            case ("HEAD", _): return .status(403, body: "")
            case (_, "/denied"): return .status(200, body: "<html>denied</html>")
            default: return .file(file)
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data.prefix(1 << 20)).write(to: URL(fileURLWithPath: directory.file("s.bin")))
        let result = try runProcess(
            try fastgetExecutable(), ["-q", "--retries", "0", "-c", "-o", "s.bin", server.url("/f")], in: directory.path, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        #expect(!server.requests.contains { $0.method == "GET" && $0.target == "/denied" }, "\(server.requests.map(\.target))")
    }

    @Test func theGETsAnswerIsTheError() throws {
        let server = try server(headStatus: 405, getStatus: 403)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data.prefix(1 << 20)).write(to: URL(fileURLWithPath: directory.file("s.bin")))
        let result = try runProcess(
            try fastgetExecutable(), ["--retries", "0", "-c", "-o", "s.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("403"), "\(result.stderr)")
        #expect(server.requests.map(\.method) == ["HEAD", "GET"])
    }

    @Test(arguments: [404, 410])
    func notFoundAndGoneAreFinalOnHEAD(status: Int) throws {
        let server = try server(headStatus: status)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data.prefix(1 << 20)).write(to: URL(fileURLWithPath: directory.file("s.bin")))
        let result = try runProcess(
            try fastgetExecutable(), ["--retries", "0", "-c", "-o", "s.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status != 0)
        #expect(server.requests.map(\.method) == ["HEAD"])
    }
}
