import FastgetTestSupport
import Glibc
import Testing

/// A stopped test server (ours or nginx) keeps its port: a test that stops a server to make its
/// URL fail must not find another server (its own next one, or one of a test running beside
/// it) answering there. That happened once in CI: a mirror started after the primary stopped
/// got the primary's port and served the primary's URL.
@Suite struct TestServerPortTests {
    @Test(arguments: [false, true])
    func aStoppedServersPortIsRefusedAndNotGivenAgain(ipv6: Bool) throws {
        let server = try TestServer(ipv6: ipv6) { _ in .status(404) }
        server.stop()
        expectRefusedAndTaken(port: server.port, ipv6: ipv6)
    }

    @Test(.enabled(if: Nginx.executable != nil, "nginx is not installed"))
    func aStoppedNginxsPortIsRefusedAndNotGivenAgain() throws {
        let nginx = try Nginx()
        nginx.stop()
        expectRefusedAndTaken(port: nginx.port, ipv6: false)
    }

    /// A client is refused at `port`, and nobody else can bind it.
    func expectRefusedAndTaken(port: Int, ipv6: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var (storage, length) = TestServer.loopbackAddress(ipv6: ipv6, port: UInt16(port))
        let connected = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
        #expect(connected == -1 && errno == ECONNREFUSED, "a client is refused", sourceLocation: sourceLocation)
        let other = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(other, $0, length) } }
        #expect(bound == -1 && errno == EADDRINUSE, "the port is still taken", sourceLocation: sourceLocation)
    }
}
