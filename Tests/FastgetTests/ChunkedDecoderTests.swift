@testable import Fastget
import Testing

/// Decodes `input` fed in pieces ending at `splits`; returns data, total consumed, done.
private func decode(_ input: [UInt8], splits: [Int] = []) throws -> (data: [UInt8], consumed: Int, done: Bool) {
    var decoder = ChunkedDecoder()
    var data: [UInt8] = []
    var consumed = 0
    var start = 0
    for end in splits + [input.count] where end >= start && !decoder.isDone {
        var piece = Array(input[start..<end])
        let count = piece.count
        // Decode in place: output aliases input, as the connection does.
        let (used, produced) = try piece.withUnsafeMutableBytes { raw in
            try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[0..<count]), into: raw.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 16)!)
        }
        data += piece[0..<produced]
        consumed += used
        if used < count { break }
        start = end
    }
    return (data, consumed, decoder.isDone)
}

@Suite struct ChunkedDecoderTests {
    static let body = "5\r\nhello\r\n1;ext=1;b=\"q\"\r\n \r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: x\r\nOther: y\r\n\r\n"
    static let expected = Array("hello 0123456789abcdef".utf8)

    @Test func decodesWholeByteByByteAndAtEverySplit() throws {
        let input = Array(ChunkedDecoderTests.body.utf8) + Array("NEXT".utf8)
        let bodyLength = ChunkedDecoderTests.body.utf8.count
        let whole = try decode(input)
        #expect(whole.data == ChunkedDecoderTests.expected && whole.consumed == bodyLength && whole.done)
        let single = try decode(input, splits: Array(1..<input.count))
        #expect(single.data == ChunkedDecoderTests.expected && single.consumed == bodyLength && single.done)
        for split in 0...input.count {
            let result = try decode(input, splits: [split])
            #expect(result.data == ChunkedDecoderTests.expected && result.consumed == bodyLength && result.done, "split at \(split)")
        }
    }

    @Test func acceptsUpperCaseHexBareLineFeedsAndNoTrailers() throws {
        let result = try decode(Array("A\nabcdefghij\n0\n\n".utf8))
        #expect(result.data == Array("abcdefghij".utf8) && result.done)
    }

    @Test func waitsForTheEndOfTheTrailers() throws {
        let result = try decode(Array("1\r\nx\r\n0\r\nTrailer: x\r\n".utf8))
        #expect(result.data == Array("x".utf8) && !result.done)
    }

    @Test(arguments: [
        ("\r\n", HTTPParseError.invalidChunkSize),
        ("g\r\n", .invalidChunkSize),
        ("-1\r\n", .invalidChunkSize),
        ("1000000000000000\r\n", .invalidChunkSize),
        ("5\rX", .malformedChunk),
        ("1\r\nxY", .malformedChunk),
        ("1\r\nx\rY", .malformedChunk),
    ])
    func rejectsMalformedFraming(input: String, error: HTTPParseError) {
        #expect(throws: error) { try decode(Array(input.utf8)) }
    }

    @Test func limitsExtensionsAndTrailers() {
        let longExtension = "1;" + String(repeating: "e", count: ChunkedDecoder.maximumExtensionBytes + 1) + "\r\nx\r\n0\r\n\r\n"
        #expect(throws: HTTPParseError.chunkExtensionTooLong) { try decode(Array(longExtension.utf8)) }
        let longTrailer = "0\r\nT: " + String(repeating: "t", count: ChunkedDecoder.maximumTrailerBytes) + "\r\n\r\n"
        #expect(throws: HTTPParseError.trailersTooLarge) { try decode(Array(longTrailer.utf8)) }
    }
}
