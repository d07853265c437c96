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
        let address = try #require(try Resolver.resolve(host: "127.0.0.1", port: server.port).first)
        let socket = try Socket.connect(to: address, timeout: 5)
        socket.setTimeouts(read: 2, write: 2) // the server never answers a handshake
        let context = try TLSContext(caFile: nil, verifyPeer: true)
        #expect {
            _ = try TLSStream(socket: socket, context: context, host: host, hostIsIPAddress: isIPAddress, port: server.port)
        } throws: { error in
            guard let error = error as? TLSError else { return false }
            return error.kind == .handshake && error.reason.hasPrefix("cannot verify the certificate for")
        }
        #expect(server.requests.isEmpty)
    }
}
