@testable import Fastget
import Testing

/// Serves fixed bytes, then the end of the stream.
private final class ScriptedStream: ByteStream, @unchecked Sendable {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        buffer.copyBytes(from: bytes[offset..<(offset + count)])
        offset += count
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {}
    func shutdown() {}
}

@Suite struct HTTPConnectionTests {
    /// fastget sends no `TE`, so `chunked` is the only transfer coding a server may apply
    /// (RFC 9112 §6.1, §7); any other could not be removed and would end up in the file.
    @Test(arguments: ["gzip, chunked", "gzip", "chunked, gzip", "identity", "chunked, chunked", "deflate,chunked"])
    func refusesEveryTransferCodingButChunked(_ coding: String) throws {
        let connection = HTTPConnection(
            stream: ScriptedStream("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(coding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
            origin: "http://h")
        #expect {
            try connection.readHead(method: "GET")
        } throws: { error in
            (error as? HTTPParseError)?.description == "unsupported Transfer-Encoding '\(coding)'"
        }
        #expect(!connection.isReusable)
    }

    @Test(arguments: ["chunked", "Chunked", " chunked "])
    func readsAChunkedBody(_ coding: String) throws {
        let connection = HTTPConnection(
            stream: ScriptedStream("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(coding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
            origin: "http://h")
        let head = try connection.readHead(method: "GET")
        #expect(head.status == 200)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try connection.readBody(into: buffer) == 5)
        #expect(Array(buffer.prefix(5)) == Array("hello".utf8))
        #expect(try connection.readBody(into: buffer) == 0)
    }

    /// A response without a body has no coding to undo.
    @Test func acceptsAnyTransferCodingWhereNoBodyFollows() throws {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        #expect(try HTTPConnection(stream: ScriptedStream(head), origin: "http://h").readHead(method: "HEAD").status == 200)
        let notModified = "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        #expect(try HTTPConnection(stream: ScriptedStream(notModified), origin: "http://h").readHead(method: "GET").status == 304)
    }
}
