import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Name resolution, TCP connect, proxy tunnel and TLS handshake share one deadline: the connect
/// timeout.
@Suite struct ConnectDeadlineTests {
    @Test(arguments: [TestServer.StalledHandshake.silent, .trickle(interval: 0.05)])
    func aTLSHandshakeThatNeverEndsFailsWithinTheConnectTimeout(stall: TestServer.StalledHandshake) throws {
        let server = try TestServer(TestServer.Configuration(stalledHandshake: stall)) { _ in .status(500) }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(
            ["-q", "--retries", "0", "--connect-timeout", "1", "--timeout", "20", "-k", "-o", "out.bin", server.url()],
            in: directory, timeout: 30)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr == "fastget: error: TLS handshake with 127.0.0.1:\(server.port) timed out\n", "\(result.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
        #expect(server.connectionCount == 1)
    }

    @Test func aProxyThatNeverAnswersCONNECTFailsWithinTheConnectTimeout() throws {
        let proxy = try TestServer { _ in .hang }
        defer { proxy.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(
            [
                "-q", "--retries", "0", "--connect-timeout", "1", "--timeout", "20", "--proxy", proxy.url("/"),
                "-o", "out.bin", "https://127.0.0.1:9/f",
            ],
            in: directory, environment: [:], timeout: 30)
        #expect(result.status == 75, "\(result.stderr)")
        // The proxy is the hop that timed out, not the origin behind it.
        #expect(
            result.stderr == "fastget: error: proxy 127.0.0.1:\(proxy.port) did not answer within the connect timeout\n"
                + "hint: the proxy is set by --proxy (-x) or the http_proxy/https_proxy variables; --noproxy '*' goes direct\n",
            "\(result.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
        #expect(proxy.requests.map(\.method) == ["CONNECT"])
    }

    /// A name server that never answers, made the only one with a private mount of
    /// /etc/resolv.conf (root and `unshare` needed; the test's own network, loopback only).
    @Test(.enabled(if: getuid() == 0 && findExecutable("unshare") != nil, "needs root and unshare"))
    func aNameServerThatNeverAnswersFailsWithinTheConnectTimeout() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nameServer = try SilentUDPSocket(address: "127.53.0.1", port: 53)
        defer { nameServer.close() }
        try "nameserver 127.53.0.1\noptions timeout:30 attempts:2\n".write(toFile: directory.file("resolv.conf"), atomically: true, encoding: .utf8)
        let unshare = try #require(findExecutable("unshare"))
        let command =
            "mount --bind '\(directory.file("resolv.conf"))' /etc/resolv.conf && exec '\(try fastgetExecutable())' "
            + "-q --connect-timeout 1 --retries 0 -o out.bin http://slow.fastget.test:8080/f"
        let started = Date()
        let result = try runProcess(unshare, ["--mount", "/bin/sh", "-c", command], in: directory.path, timeout: 30)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(
            result.stderr == "fastget: error: cannot resolve host 'slow.fastget.test' now: no answer within the connect timeout\n",
            "\(result.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
        #expect(nameServer.receivedQuery(), "the lookup went to the silent server")
    }
}

/// A UDP socket that receives and never answers: a name server that has gone quiet.
private final class SilentUDPSocket: Sendable {
    let fd: Int32

    init(address: String, port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var name = sockaddr_in()
        name.sin_family = sa_family_t(AF_INET)
        name.sin_addr.s_addr = inet_addr(address)
        name.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw HarnessError("cannot bind \(address):\(port)")
        }
    }

    /// Whether a datagram is waiting (without waiting for one).
    func receivedQuery() -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    func close() { Glibc.close(fd) }
}
