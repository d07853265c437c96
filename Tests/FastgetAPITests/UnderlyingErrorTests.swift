import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// A library error keeps what failed underneath as a value an embedder can test.
@Suite struct UnderlyingErrorTests {
    @Test func aRefusedConnectionCarriesItsErrno() throws {
        // A port that was just free: nothing listens there.
        let port = try freeLoopbackPort()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.retries = 0
        let error = try #require(throws: FastgetError.self) { try Download(url: "http://127.0.0.1:\(port)/f", options: options).run() }
        #expect(error.underlying == .system(operation: "connect", errno: ECONNREFUSED), "\(error)")
        #expect(error.code == .unavailable)
    }

    @Test func aRefusedConnectionToTheProxyCarriesItsErrnoToo() throws {
        let port = try freeLoopbackPort()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.retries = 0
        options.proxy = "http://127.0.0.1:\(port)"
        let error = try #require(throws: FastgetError.self) { try Download(url: "http://192.0.2.1/f", options: options).run() }
        #expect(error.underlying == .system(operation: "connect", errno: ECONNREFUSED), "\(error)")
    }

    @Test func anUntrustedCertificateCarriesTheTLSReason() throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let server = try TestServer(
            file: TestFile(testBytes(count: 1000, seed: 3)), TestServer.Configuration(tls: TestIdentity(directory: certificates)))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try #require(throws: FastgetError.self) { try Download(url: server.url("/f"), options: testOptions(directory)).run() }
        guard case .tls(let reason) = error.underlying else {
            Issue.record("underlying \(String(describing: error.underlying)) for \(error)")
            return
        }
        #expect(error.code == .tls && error.message.contains(reason), "\(reason) / \(error.message)")
    }
}
