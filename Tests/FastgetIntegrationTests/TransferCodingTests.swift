import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// fastget sends no `TE`: a transfer coding other than `chunked` could not be undone, so the bytes
/// would be saved still encoded.
@Suite struct TransferCodingTests {
    @Test func aGzipTransferCodingIsAProtocolErrorAndNothingIsSaved() throws {
        let encoded = [0x1F, 0x8B, 0x08, 0x00] + testBytes(count: 5000, seed: 64)
        let chunked = Array("\(String(encoded.count, radix: 16))\r\n".utf8) + encoded + Array("\r\n0\r\n\r\n".utf8)
        let server = try TestServer { request in
            let head = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
            if request.method == "HEAD" { return rawResponse(head + "Content-Length: \(encoded.count)\r\n\r\n") }
            if request.header("Range") != nil { return rawResponse(head + "\r\n") }
            return rawResponse(head + "Transfer-Encoding: gzip, chunked\r\n\r\n", chunked)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (result, _) = try timedFastget(["-q", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("fastget: error: invalid response from 127.0.0.1:\(server.port): unsupported Transfer-Encoding 'gzip, chunked'"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
        #expect(plainGets(server) == 1, "a protocol error is not retried")
    }
}
