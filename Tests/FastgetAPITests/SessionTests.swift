import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// One `Session` shared by several downloads: keep-alive connections and TLS sessions reused
/// across files, only between downloads that make connections alike.
@Suite struct SessionTests {
    let files = (0..<4).map { testBytes(count: 48 * 1024 + $0, seed: 1510 + UInt64($0)) }

    func server(_ configuration: TestServer.Configuration = TestServer.Configuration()) throws -> TestServer {
        let files = self.files
        return try TestServer(configuration) { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
    }

    @Test func twoDownloadsToOneOriginUseOneConnection() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let session = try Session()
        for index in 0..<2 {
            let report = try Download(url: server.url("/f\(index)"), options: testOptions(directory), session: session).run()
            #expect(SHA256.hex(ofFile: directory.file("f\(index)")) == SHA256.hex(files[index]))
            #expect(report.connections == (index == 0 ? 1 : 0), "the second download opened no connection")
        }
        #expect(server.requests.map(\.target) == ["/f0", "/f1"])
        #expect(server.requests.map(\.connection) == [0, 0])
        #expect(server.connectionCount == 1)
        session.closeIdleConnections()
        #expect(server.waitUntilIdle())
    }

    @Test func withoutASessionEveryDownloadHasItsOwnConnections() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for index in 0..<2 { _ = try Download(url: server.url("/f\(index)"), options: testOptions(directory)).run() }
        #expect(server.requests.map(\.connection) == [0, 1])
        // Nothing stays open after a run.
        #expect(server.waitUntilIdle())
    }

    @Test(arguments: [1, 2])
    func aQueueSharesConnectionsAcrossItsFiles(active: Int) throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: active, options: testOptions(directory))
        for index in files.indices { try queue.add(server.url("/f\(index)")) }
        #expect(queue.waitUntilIdle(timeout: 30))
        for index in files.indices {
            #expect(SHA256.hex(ofFile: directory.file("f\(index)")) == SHA256.hex(files[index]))
        }
        #expect(server.requests.count == files.count, "one request per file")
        #expect(server.connectionCount <= active, "\(server.connectionCount) connections for \(files.count) files")
        // The queue's own session closes its idle connections once the queue is idle.
        #expect(server.waitUntilIdle())
    }

    @Test func aSecondDownloadOverTLSReusesTheConnection() throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates)
        let server = try server(TestServer.Configuration(tls: identity))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.caFile = identity.certificatePath
        let session = try Session()
        let first = try Download(url: server.url("/f0"), options: options, session: session).run()
        let second = try Download(url: server.url("/f1"), options: options, session: session).run()
        #expect(first.fullHandshakes == 1 && second.fullHandshakes == 0 && second.connections == 0)
        #expect(server.requests.map(\.connection) == [0, 0])
        #expect(SHA256.hex(ofFile: directory.file("f1")) == SHA256.hex(files[1]))
    }

    @Test func downloadsThatMakeConnectionsDifferentlyDoNotShare() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let session = try Session()
        var other = testOptions(directory)
        other.ioTimeout = .seconds(20) // another I/O timeout: another kind of connection
        _ = try Download(url: server.url("/f0"), options: testOptions(directory), session: session).run()
        _ = try Download(url: server.url("/f1"), options: other, session: session).run()
        _ = try Download(url: server.url("/f2"), options: testOptions(directory), session: session).run()
        #expect(server.requests.map(\.connection) == [0, 1, 0])
        session.closeIdleConnections()
    }

    /// Over TLS the server's close comes without a close_notify (the socket is shut down):
    /// still a stale connection to replace, not a failure that costs a retry.
    @Test(arguments: [false, true])
    func aConnectionTheServerClosedWhileIdleIsReplaced(tls: Bool) throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = tls ? try TestIdentity(directory: certificates) : nil
        let server = try server(TestServer.Configuration(tls: identity))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.caFile = identity?.certificatePath
        let session = try Session()
        _ = try Download(url: server.url("/f0"), options: options, session: session).run()
        server.closeConnections()
        let report = try Download(url: server.url("/f1"), options: options, session: session).run()
        #expect(SHA256.hex(ofFile: directory.file("f1")) == SHA256.hex(files[1]))
        #expect(report.retries == 0 && report.connections == 1)
        session.closeIdleConnections()
    }

    @Test func theCapIsValidated() {
        #expect(throws: FastgetError.self) { try Session(maximumConnectionsPerHost: 0) }
        #expect(throws: FastgetError.self) { try Session(maximumConnectionsPerHost: 65) }
        #expect((try? Session(maximumConnectionsPerHost: 64))?.maximumConnectionsPerHost == 64)
    }
}
