import Fastget
import FastgetTestSupport
import Testing

/// The library's cookies, in process: a jar an embedder gives is filled by every connection
/// of a download at once and read back afterwards (run under the thread sanitizer too).
@Suite struct CookieDownloadTests {
    let data = testBytes(count: (1 << 20) + 7, seed: 41)

    @Test func theJarGivenIsSharedByEveryConnectionAndKeptAfterwards() throws {
        let server = try TestServer { [data] request in
            // Each answer sets a cookie named after its range, and needs the probe's.
            let range = request.header("Range") ?? "none"
            var file = TestFile(data)
            file.extraFields = ["Set-Cookie: r\(range.filter(\.isNumber).prefix(12))=1; Path=/"]
            guard range == "bytes=0-" || request.header("Cookie")?.contains("r0=1") == true else { return .status(403) }
            return .file(file)
        }
        let jar = CookieJar([Cookie(name: "given", value: "yes", domain: "127.0.0.1")])
        let (report, directory, output) = try download(server.url(), segments: 8) { $0.cookieJar = jar }
        defer { directory.remove() }
        #expect(throws: Never.self) { try report.get() }
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let ranged = server.requests.filter { $0.header("Range") != "bytes=0-" }
        #expect(ranged.count >= 7)
        #expect(ranged.allSatisfy { $0.header("Cookie")?.hasPrefix("given=yes; r0=1") == true }, "\(ranged.map(\.raw))")
        #expect(jar.cookies.count == server.requests.count + 1, "\(jar.cookies.map(\.name))")
    }
}
