#if FASTGET_FAULTS
import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A server on a public address that announces mirrors inside (loopback here) reaches none of
/// them, whatever the spelling, the DNS answer or the mirror's redirect. The public server is a
/// test server on 127.0.0.2, which `IPAddress.countedPublic` counts as public; the inside
/// service listens on 127.0.0.1 and [::1], and must see no request at all.
@Suite struct AnnouncedMirrorReachTests {
    let data = testBytes(count: 2 << 20, seed: 25)
    static let publicAddress = IPAddress.v4(0x7F00_0002)

    init() { _ = IPAddress.countedPublic.withLock { $0.insert(AnnouncedMirrorReachTests.publicAddress) } }

    func file(_ fields: [String] = []) -> TestFile {
        var file = TestFile(data)
        file.extraFields = [SHA256.reprDigestField(data)] + fields
        return file
    }

    /// Downloads `public.example` (the server `origin`, on 127.0.0.2) with `resolve` besides;
    /// through `proxy`, `127.0.0.2` as spelled (the proxy resolves no test name).
    func download(from origin: TestServer, resolve: [String: String] = [:], proxy: TestProxy? = nil) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.output = directory.file("f.bin")
        options.resolve = resolve.merging(["public.example:\(origin.port)": "127.0.0.2"]) { a, _ in a }
        options.proxy = proxy?.url()
        let host = proxy == nil ? "public.example" : "127.0.0.2"
        _ = try Download(url: "http://\(host):\(origin.port)/f.bin", options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test func noSpellingOfLoopbackReachesTheInsideService() throws {
        let inside = try TestServer(file: file())
        let inside6 = try TestServer(file: file(), TestServer.Configuration(ipv6: true))
        var onPublic = TestServer.Configuration()
        onPublic.ipv4Address = "127.0.0.2"
        let publicMirror = try TestServer(file: file(), onPublic)
        let port = inside.port
        let spellings =
            ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.0.1", "0", "0x7f.1", "017700000001", "[::ffff:127.0.0.1]", "[::127.0.0.1]"]
            .map { "http://\($0):\(port)/f.bin" }
            + ["[0:0:0:0:0:0:0:1]", "[0::1]", "[::1]", "[0000::0001]"].map { "http://\($0):\(inside6.port)/f.bin" }
            + ["http://inside.example:\(port)/f.bin", "http://public-mirror.example:\(publicMirror.port)/f.bin"]
        let links = "Link: " + spellings.map { "<\($0)>; rel=duplicate" }.joined(separator: ", ")
        let origin = try TestServer(file: file([links]), onPublic)
        try download(
            from: origin,
            resolve: ["inside.example:\(port)": "127.0.0.1", "public-mirror.example:\(publicMirror.port)": "127.0.0.2"])
        #expect(inside.requests.isEmpty, "\(inside.requests.map(\.raw))")
        #expect(inside6.requests.isEmpty, "\(inside6.requests.map(\.raw))")
        #expect(!publicMirror.requests.isEmpty, "a public mirror is still used")
    }

    /// Through a proxy, which resolves names itself, a mirror's name that resolves inside here
    /// (`localhost`, and a `--resolve` name) is refused before the proxy is asked.
    @Test func aNameResolvingInsideIsRefusedThroughAProxy() throws {
        let inside = try TestServer(file: file())
        let proxy = try TestProxy()
        defer { proxy.stop() }
        var onPublic = TestServer.Configuration()
        onPublic.ipv4Address = "127.0.0.2"
        let mirrors = ["http://localhost:\(inside.port)/f.bin", "http://inside.example:\(inside.port)/f.bin"]
        let links = "Link: " + mirrors.map { "<\($0)>; rel=duplicate" }.joined(separator: ", ")
        let origin = try TestServer(file: file([links]), onPublic)
        try download(from: origin, resolve: ["inside.example:\(inside.port)": "127.0.0.1"], proxy: proxy)
        #expect(inside.requests.isEmpty, "\(inside.requests.map(\.raw))")
        #expect(!origin.requests.isEmpty)
        #expect(proxy.requests.allSatisfy { $0.requestLine.contains("127.0.0.2:\(origin.port)") }, "\(proxy.requests.map(\.requestLine))")
    }

    @Test func aPublicMirrorCannotRedirectInside() throws {
        let inside = try TestServer(file: file())
        var onPublic = TestServer.Configuration()
        onPublic.ipv4Address = "127.0.0.2"
        let redirecting = try TestServer(onPublic) { _ in .redirect(status: 302, location: "http://127.1:\(inside.port)/f.bin") }
        let origin = try TestServer(file: file(["Link: <http://127.0.0.2:\(redirecting.port)/f.bin>; rel=duplicate"]), onPublic)
        try download(from: origin)
        #expect(!redirecting.requests.isEmpty, "the mirror was asked")
        #expect(inside.requests.isEmpty, "\(inside.requests.map(\.raw))")
    }
}
#endif
