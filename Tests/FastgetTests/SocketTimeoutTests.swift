@testable import Fastget
import FastgetTestSupport
import Glibc
import Testing

/// What `Socket.makeBlocking` hands the kernel: never the zero `timeval` that means "no timeout"
/// for a positive timeout, and never a trap for a huge one.
@Suite struct SocketTimeoutTests {
    private func withConnectedSocket(_ body: (Socket) throws -> Void) throws {
        let server = try TestServer { _ in .hang }
        defer { server.stop() }
        let address = try #require(try Resolver.resolve(host: "127.0.0.1", port: server.port, deadline: MonotonicClock.seconds() + 5).first)
        let socket = try Socket.connect(to: address, deadline: MonotonicClock.seconds() + 5)
        defer { socket.shutdown() }
        try body(socket)
    }

    private func timeouts(_ socket: Socket) -> (read: timeval, write: timeval) {
        var read = timeval(), write = timeval()
        var length = socklen_t(MemoryLayout<timeval>.size)
        getsockopt(socket.descriptor, SOL_SOCKET, SO_RCVTIMEO, &read, &length)
        length = socklen_t(MemoryLayout<timeval>.size)
        getsockopt(socket.descriptor, SOL_SOCKET, SO_SNDTIMEO, &write, &length)
        return (read, write)
    }

    @Test(arguments: [1e-7, 1e-300, .leastNonzeroMagnitude])
    func aTimeoutBelowAMicrosecondIsNotTakenAsNone(seconds: Double) throws {
        try withConnectedSocket { socket in
            socket.makeBlocking(readTimeout: seconds, writeTimeout: seconds)
            let (read, write) = timeouts(socket)
            #expect(read.tv_sec == 0 && read.tv_usec > 0 && read.tv_usec < 100_000, "\(read)")
            #expect(write.tv_sec == 0 && write.tv_usec > 0 && write.tv_usec < 100_000, "\(write)")
        }
    }

    @Test(arguments: [1e300, .infinity, .greatestFiniteMagnitude, 1e10])
    func aHugeTimeoutIsCappedAtAboutThirtyYears(seconds: Double) throws {
        try withConnectedSocket { socket in
            socket.makeBlocking(readTimeout: seconds, writeTimeout: seconds)
            let (read, write) = timeouts(socket)
            #expect(read.tv_sec >= 999_999_000 && write.tv_sec >= 999_999_000, "\(read) \(write)")
        }
    }

    @Test func anOrdinaryTimeoutKeepsItsFraction() throws {
        try withConnectedSocket { socket in
            socket.makeBlocking(readTimeout: 2.5, writeTimeout: 30)
            let (read, write) = timeouts(socket)
            #expect(read.tv_sec == 2 && read.tv_usec == 500_000)
            #expect(write.tv_sec == 30 && write.tv_usec == 0)
        }
    }
}
