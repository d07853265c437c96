import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Typed inputs an embedder builds before a download: a parsed URL, header fields.
@Suite struct TypedInputTests {
    let data = testBytes(count: 300_000, seed: 29)

    /// A parsed URL downloads as its text does, its credentials and header fields included.
    @Test func aParsedURLCarriesItsCredentialsAndTheFieldsGoAsGiven() throws {
        let file = TestFile(data)
        let guarding = BasicGuard(user: "ann", password: "s:cret")
        let server = try TestServer { request in guarding.check(request) ?? .file(file) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 1)
        options.headerFields = [try HeaderField(name: "X-Trace", value: "a\tb"), try HeaderField(name: "User-Agent", value: "")]
        let text = server.url("/f.bin").replacingOccurrences(of: "://", with: "://ann:s%3Acret@")
        let url = try HTTPURL(text)
        let download = try Download(url: url, options: options)
        #expect(download.defaultDestination == directory.file("f.bin"))
        try download.run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        // Plain http: Basic goes once the server asks (a 401), then with every request.
        let requests = server.requests
        #expect(requests.count >= 2 && requests.dropFirst().allSatisfy { $0.header("Authorization") == guarding.expected })
        #expect(requests.allSatisfy { $0.header("X-Trace") == "a\tb" && $0.header("User-Agent") == nil })
    }
}
