import FastgetTestSupport
import Glibc
import Testing

/// A stopped test server keeps its port: a test that stops a server to make its URL fail must
/// not find another server (its own next one, or one of a test running beside it) answering
/// there. That happened once in CI: a mirror started after the primary stopped got the
/// primary's port and served the primary's URL.
@Suite struct TestServerPortTests {
    @Test(arguments: [false, true])
    func aStoppedServersPortIsRefusedAndNotGivenAgain(ipv6: Bool) throws {
        let server = try TestServer(ipv6: ipv6) { _ in .status(404) }
        server.stop()
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var storage = sockaddr_storage()
        let length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            address.sin6_port = UInt16(server.port).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(server.port).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        }
        let connected = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
        #expect(connected == -1 && errno == ECONNREFUSED, "a client is refused")
        let other = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(other, $0, length) } }
        #expect(bound == -1 && errno == EADDRINUSE, "the port is still taken")
    }
}
