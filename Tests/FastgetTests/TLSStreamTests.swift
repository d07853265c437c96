@testable import Fastget
import FastgetTestSupport
import Testing

@Suite struct TLSStreamTests {
    /// A name OpenSSL cannot take for the certificate check must stop the connection before the
    /// handshake, never leave it checking nothing.
    @Test(arguments: [("localhost\u{0}.evil.example", false), ("999.1.1.1", true), ("", false), ("", true)])
    func refusesToConnectWhenTheNameToVerifyIsRejected(host: String, isIPAddress: Bool) throws {
        let server = try TestServer { _ in .hang }
        defer { server.stop() }
        let deadline = MonotonicClock.seconds() + 5 // the server never answers a handshake
        let address = try #require(try Resolver.resolve(host: "127.0.0.1", port: server.port, deadline: deadline).first)
        let socket = try Socket.connect(to: address, deadline: deadline)
        let context = try TLSContext(caFile: nil, verifyPeer: true)
        #expect {
            _ = try TLSStream(
                socket: socket, context: context, host: host, hostIsIPAddress: isIPAddress, port: server.port,
                deadline: deadline)
        } throws: { error in
            guard let error = error as? TLSError else { return false }
            return error.kind == .handshake && error.reason.hasPrefix("cannot verify the certificate for")
        }
        #expect(server.requests.isEmpty)
    }
}
