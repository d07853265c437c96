import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// A server without ranges: HEAD announces `announced` bytes; the probe's ranged GET is answered
/// 200 (no body is read from it); the n-th plain GET (0, 1, …) sends `sends(n)` bytes of `data`
/// with no length and closes.
private func streamServer(_ data: [UInt8], announced: Int, sends: @escaping @Sendable (Int) -> Int) throws -> TestServer {
    let plainGets = Atomic<Int>(0)
    return try TestServer { request in
        let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
        if request.method == "HEAD" { return rawResponse(head + "Content-Length: \(announced)\r\n\r\n") }
        if request.header("Range") != nil { return rawResponse(head + "\r\n") }
        let index = plainGets.wrappingAdd(1, ordering: .relaxed).oldValue
        return rawResponse(head + "\r\n", data.prefix(sends(index)))
    }
}

/// A single stream (no ranges) whose length is known must deliver exactly that many bytes.
@Suite struct TruncatedStreamTests {
    let data = testBytes(count: 1_000_000, seed: 61)

    @Test func aStreamCutShortIsRetriedAndNeverSavedAsComplete() throws {
        let server = try streamServer(data, announced: data.count) { _ in 500_000 }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["-q", "--retries", "1", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: the connection closed after 500000 of 1000000 body bytes"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
        #expect(plainGets(server) == 2, "the first attempt and one retry")
    }

    @Test func aStreamCutShortOnStandardOutputFails() throws {
        let server = try streamServer(data, announced: data.count) { _ in 500_000 }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["-o", "-", server.url()], in: directory, stdout: directory.file("streamed"))
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: the connection closed after 500000 of 1000000 body bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("wrote standard output"))
        // What went out is the file's true prefix; a stream cannot be retried from byte 0.
        #expect(SHA256.hex(ofFile: directory.file("streamed")) == SHA256.hex(data.prefix(500_000)))
        #expect(plainGets(server) == 1)
    }

    @Test func aRetryThatGetsTheWholeBodySavesTheFile() throws {
        let server = try streamServer(data, announced: data.count) { $0 == 0 ? 500_000 : .max }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["--retries", "1", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(result.stderr.contains(", 1 retry)"), "\(result.stderr)")
        #expect(plainGets(server) == 2)
    }

    @Test func aStreamWhoseLengthDiffersFromTheProbesIsNeverSaved() throws {
        let data = self.data
        let server = try TestServer { request in
            let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
            if request.method == "HEAD" { return rawResponse(head + "Content-Length: \(data.count)\r\n\r\n") }
            if request.header("Range") != nil { return rawResponse(head + "\r\n") }
            return rawResponse(head + "Content-Length: 500000\r\n\r\n", data.prefix(500_000))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["-q", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr == "fastget: error: the file changed on the server (it is 500000 bytes now, not 1000000)\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
        // The first run and two restarts, each probing anew.
        #expect(server.requests.filter { $0.method == "HEAD" }.count == 3)
    }

    @Test func aStreamLongerThanAnnouncedIsAProtocolError() throws {
        let longer = data + testBytes(count: 1000, seed: 62)
        let server = try streamServer(longer, announced: data.count) { _ in .max }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["-q", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: server sent more than the 1000000 bytes it announced"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
        #expect(plainGets(server) == 1)
    }
}
