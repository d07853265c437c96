import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Bodies read only to be dropped (a redirect's) or to reach their end (a chunked range's last
/// chunk and trailers) get one I/O timeout in all, however slowly their bytes trickle in.
@Suite struct DrainDeadlineTests {
    let data = testBytes(count: 100_000, seed: 65)

    @Test func aRedirectBodyThatTricklesIsAbandonedAfterTheTimeout() throws {
        let file = TestFile(data)
        let server = try TestServer { request in
            guard request.target == "/start" else { return .file(file) }
            if request.method == "HEAD" { return .status(405) }
            return .trickleAfter(
                sent: Array("HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 400\r\n\r\n".utf8),
                trickled: [UInt8](repeating: 0x78, count: 400), interval: 0.1)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(["-q", "--timeout", "1", "-o", "out.bin", server.url("/start")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        // The 400 bytes would take 40 s; a bound ten times the timeout catches the wait.
        #expect(seconds < 10, "took \(seconds) s")
        // The probe's GET met the redirect (no HEAD is sent first).
        #expect(server.requests.filter { $0.target == "/start" }.map(\.method) == ["GET"])
    }

    @Test func aChunkedRangeWhoseTrailerTricklesIsFinishedAfterTheTimeout() throws {
        let file = TestFile(data)
        let range = "bytes 0-\(data.count - 1)/\(data.count)"
        let head = "HTTP/1.1 206 Partial Content\r\nContent-Range: \(range)\r\nTransfer-Encoding: chunked\r\n\r\n"
        let body = Array("\(String(data.count, radix: 16))\r\n".utf8) + data + Array("\r\n".utf8)
        let trailer = Array("0\r\nX-Slow: \(String(repeating: "t", count: 400))\r\n\r\n".utf8)
        let server = try TestServer { request in
            request.method == "GET" ? .trickleAfter(sent: Array(head.utf8) + body, trickled: trailer, interval: 0.1) : .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(["-q", "--timeout", "1", "-n", "1", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(seconds < 10, "took \(seconds) s")
        // The probe's GET carried the file: one request.
        #expect(server.requests.map(\.method) == ["GET"])
    }

    @Test func aSingleStreamWhoseLastChunkTricklesFailsAfterTheTimeout() throws {
        // Without ranges the body is read to its end in the transfer itself: a trickling last
        // chunk stalls it there, and the stream cannot be declared complete before its end.
        let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
        let body = Array("\(String(data.count, radix: 16))\r\n".utf8) + data + Array("\r\n".utf8)
        let trailer = Array("0\r\nX-Slow: \(String(repeating: "t", count: 400))\r\n\r\n".utf8)
        let server = try TestServer { request in
            if request.method == "HEAD" || request.header("Range") != nil { return rawResponse(head + "\r\n") }
            return .trickleAfter(sent: Array((head + "Transfer-Encoding: chunked\r\n\r\n").utf8) + body, trickled: trailer, interval: 0.1)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, seconds) = try timedFastget(["-q", "--timeout", "1", "--retries", "0", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("fastget: error: the response body stalled in its chunked framing beyond the timeout"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
        #expect(seconds < 10, "took \(seconds) s")
        #expect(plainGets(server) == 1)
    }
}
