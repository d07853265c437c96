import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A response labelled `Content-Encoding: gzip` that fastget did not ask for (it sends
/// `Accept-Encoding: identity`) is saved byte for byte as sent, never decoded, with one notice.
@Suite struct ContentEncodingTests {
    /// The bytes as the server stores and sends them (a `.tar.gz`, say).
    let encoded = [0x1F, 0x8B, 0x08, 0x00] + testBytes(count: (3 << 20) + 11, seed: 97)
    static let notice = "fastget: server sent Content-Encoding gzip; saving the bytes as sent\n"

    private func run(_ file: TestFile, _ arguments: [String]) throws -> (ProcessResult, TestServer, TemporaryDirectory) {
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        let result = try runProcess(try fastgetExecutable(), arguments + [server.url("/release.tar.gz")], in: directory.path, timeout: 60)
        return (result, server, directory)
    }

    @Test func savesRangedSegmentsAsSent() throws {
        var file = TestFile(encoded)
        file.extraFields = ["Content-Encoding: gzip", "Content-Type: application/x-tar"]
        let (result, server, directory) = try run(file, ["-n", "3"])
        defer { directory.remove() }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("release.tar.gz")) == SHA256.hex(encoded))
        #expect(result.stderr.components(separatedBy: ContentEncodingTests.notice).count == 2, "exactly once: \(result.stderr)")
        #expect(result.stderr.hasSuffix("3 connections at once)\n") || result.stderr.contains("3 connections at once,"), "\(result.stderr)")
        let ranges = server.requests.filter { $0.header("Range") != nil }
        #expect(ranges.count >= 3)
        #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
    }

    @Test(arguments: [TestFile.Framing.contentLength, .chunked(chunkSize: 100_000), .untilClose])
    func savesASingleStreamAsSent(framing: TestFile.Framing) throws {
        var file = TestFile(encoded)
        file.extraFields = ["Content-Encoding: gzip"]
        file.honorsRange = false
        file.advertisesRanges = false
        file.framing = framing
        let (result, server, directory) = try run(file, ["-n", "4"])
        defer { directory.remove() }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("release.tar.gz")) == SHA256.hex(encoded))
        #expect(result.stderr.components(separatedBy: ContentEncodingTests.notice).count == 2, "exactly once: \(result.stderr)")
        #expect(result.stderr.contains("1 connection)"), "\(result.stderr)")
        // The stream is the probe's GET when its answer has a length, else a plain GET after
        // the HEAD probe.
        let last = server.requests.last
        #expect(last?.method == "GET" && (last?.header("Range") == nil || (framing == .contentLength && last?.header("Range") == "bytes=0-")))
    }
}
