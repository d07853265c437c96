@testable import Fastget
import Testing

/// Feeds `bytes` to a fresh parser in the given pieces; returns the head and the total consumed.
private func parse(_ bytes: [UInt8], splits: [Int] = []) throws -> (ResponseHead, Int)? {
    var parser = HeadParser()
    var consumed = 0
    var start = 0
    for end in splits + [bytes.count] where end >= start {
        if let (head, used) = try parser.feed(Array(bytes[start..<end])) {
            return (head, consumed + used)
        }
        consumed += end - start
        start = end
    }
    return nil
}

@Suite struct HeadParserTests {
    static let samples: [String] = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"abc\"\r\n\r\n",
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-4/10\r\nContent-Length: 5\r\nAccept-Ranges: bytes\r\n\r\n",
        "HTTP/1.0 404 Not Found\r\n\r\n",
        "HTTP/1.1 302 \r\nLocation: /x\r\n\r\n",
        "HTTP/1.1 200\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\nContent-Length: 5\n\n",
    ]

    @Test(arguments: samples)
    func parsesTheSameWholeByteByByteAndAtEverySplit(_ sample: String) throws {
        let head = Array(sample.utf8)
        let bytes = head + Array("BODY!".utf8)
        let (whole, consumed) = try #require(try parse(bytes))
        #expect(consumed == head.count)
        let (single, singleConsumed) = try #require(try parse(bytes, splits: Array(1..<bytes.count)))
        #expect(single == whole && singleConsumed == head.count)
        for split in 0...bytes.count {
            let (part, partConsumed) = try #require(try parse(bytes, splits: [split]))
            #expect(part == whole && partConsumed == head.count, "split at \(split)")
        }
    }

    @Test func readsStatusVersionAndFields() throws {
        let (head, _) = try #require(try parse(Array(HeadParserTests.samples[1].utf8)))
        #expect(head.status == 206 && head.minorVersion == 1 && head.reason == "Partial Content")
        #expect(head.contentLength == 5)
        #expect(try head.contentRange() == ContentRange(first: 0, last: 4, completeLength: 10))
        #expect(head.acceptsByteRanges == true)
        #expect(head.value("CONTENT-LENGTH".lowercased()) == "5")
        #expect(head.allowsKeepAlive)
    }

    @Test func lowerCasesNamesAndTrimsValues() throws {
        let (head, _) = try #require(try parse(Array("HTTP/1.1 200 OK\r\nX-Thing:   spaced value \t\r\n\r\n".utf8)))
        #expect(head.fields == [.init(name: "x-thing", value: "spaced value")])
    }

    @Test func namesTakeEveryTokenByteAndValuesLoseOnlyTheirEdges() throws {
        let text = "HTTP/1.1 200 OK\r\nX-A!#$%&'*+.^_`|~Z9: \t\u{0}\r\u{0}a\u{0}b\rc \u{0}\t\r\nEMPTY:\u{0} \r\n\r\n"
        let (head, _) = try #require(try parse(Array(text.utf8)))
        #expect(head.fields == [.init(name: "x-a!#$%&'*+.^_`|~z9", value: "a b c"), .init(name: "empty", value: "")])
        // Bytes that are no UTF-8 become U+FFFD; the spaces around them still go.
        let (invalid, _) = try #require(try parse([UInt8]("HTTP/1.1 200 OK\r\nX: ".utf8) + [0xE2, 0x82, 0x20, 0xFF] + [UInt8](" \r\n\r\n".utf8)))
        #expect(invalid.fields == [.init(name: "x", value: "\u{FFFD} \u{FFFD}")])
        #expect(throws: HTTPParseError.malformedHeaderLine) { try parse(Array("HTTP/1.1 200 OK\r\nX(Y: 1\r\n\r\n".utf8)) }
    }

    @Test func joinsObsoleteLineFolding() throws {
        let (head, _) = try #require(try parse(Array("HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\n\r\n".utf8)))
        #expect(head.value("x-a") == "one two")
    }

    @Test func skipsNothingAfterHead() throws {
        let (head, consumed) = try #require(try parse(Array("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8)))
        #expect(head.status == 204 && consumed == 27)
    }

    @Test func knowsConnectionPersistence() throws {
        let close = try #require(try parse(Array("HTTP/1.1 200 OK\r\nConnection: Close\r\n\r\n".utf8))).0
        let old = try #require(try parse(Array("HTTP/1.0 200 OK\r\n\r\n".utf8))).0
        let oldKept = try #require(try parse(Array("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n".utf8))).0
        #expect(!close.allowsKeepAlive && !old.allowsKeepAlive && oldKept.allowsKeepAlive)
    }

    @Test func chunkedOnlyWhenItIsTheFinalCoding() throws {
        let chunked = try #require(try parse(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8))).0
        let notFinal = try #require(try parse(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n".utf8))).0
        #expect(chunked.isChunked && !notFinal.isChunked && notFinal.hasTransferEncoding)
    }

    @Test func acceptsHeadOfExactlyTheLimitAndRejectsOneByteMore() throws {
        func head(size: Int) -> [UInt8] {
            let prefix = "HTTP/1.1 200 OK\r\nX-Fill: "
            let suffix = "\r\n\r\n"
            let fill = size - prefix.utf8.count - suffix.utf8.count
            return Array((prefix + String(repeating: "a", count: fill) + suffix).utf8)
        }
        #expect(try parse(head(size: HeadParser.maximumHeadBytes)) != nil)
        #expect(throws: HTTPParseError.headTooLarge(limit: HeadParser.maximumHeadBytes)) {
            try parse(head(size: HeadParser.maximumHeadBytes + 1))
        }
    }

    @Test func acceptsExactlyTheLineLimitAndRejectsOneMore() throws {
        func head(lines: Int) -> [UInt8] {
            Array(("HTTP/1.1 200 OK\r\n" + (0..<lines).map { "X-\($0): v\r\n" }.joined() + "\r\n").utf8)
        }
        #expect(try parse(head(lines: HeadParser.maximumHeaderLines))?.0.fields.count == HeadParser.maximumHeaderLines)
        #expect(throws: HTTPParseError.tooManyHeaderLines(limit: HeadParser.maximumHeaderLines)) {
            try parse(head(lines: HeadParser.maximumHeaderLines + 1))
        }
    }

    @Test(arguments: [
        ("<html>hello</html>\r\n\r\n", HTTPParseError.notHTTP),
        ("SSH-2.0-OpenSSH\r\n\r\n", .notHTTP),
        ("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion("HTTP/2.0")),
        ("HTTP/1.1 20 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 099 Low\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1  200 OK\r\n\r\n", .malformedStatusLine),
        ("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", .malformedHeaderLine),
        ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .malformedHeaderLine),
        ("HTTP/1.1 200 OK\r\nName : x\r\n\r\n", .malformedHeaderLine),
        ("HTTP/1.1 200 OK\r\n: x\r\n\r\n", .malformedHeaderLine),
        ("HTTP/1.1 200 OK\r\n folded-first\r\n\r\n", .malformedHeaderLine),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", .conflictingContentLength),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .invalidContentLength("-1")),
        ("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n", .invalidContentLength("+5")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength("0x10")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength("99999999999999999999")),
        ("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", .invalidContentLength("")),
    ])
    func rejectsHostileHeads(input: String, error: HTTPParseError) {
        #expect(throws: error) { try parse(Array(input.utf8)) }
    }

    @Test func acceptsRepeatedEqualContentLengths() throws {
        let (head, _) = try #require(try parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 7, 7\r\nContent-Length: 7\r\n\r\n".utf8)))
        #expect(head.contentLength == 7)
    }
}

@Suite struct ContentRangeTests {
    @Test(arguments: [
        ("bytes 0-499/1234", ContentRange(first: 0, last: 499, completeLength: 1234)),
        ("bytes 500-1233/1234", ContentRange(first: 500, last: 1233, completeLength: 1234)),
        ("BYTES 0-0/1", ContentRange(first: 0, last: 0, completeLength: 1)),
        ("bytes 5-9/*", ContentRange(first: 5, last: 9, completeLength: nil)),
        ("bytes */1234", ContentRange(first: nil, last: nil, completeLength: 1234)),
        ("bytes */0", ContentRange(first: nil, last: nil, completeLength: 0)),
        (" bYtEs \t 7-7/8\t", ContentRange(first: 7, last: 7, completeLength: 8)),
    ])
    func parsesValidForms(text: String, expected: ContentRange) throws {
        #expect(try ContentRange.parse(text) == expected)
    }

    @Test(arguments: [
        "", "bytes", "bytes 0-4", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-4/10", "bytes 0-4/-1", "items 0-4/10",
        "bytes */*", "bytes 0-/10", "bytes a-b/10", "bytes 0-4/10/3", "bytes 0-99999999999999999999/5",
        "bytes\u{0}0-4/10", "Bytes\t0-4/10", "bytes 0-1-2/10", "bytes 0-4 /10", "bytes \u{301}0-4/10",
    ])
    func rejectsInvalidForms(_ text: String) {
        #expect(throws: HTTPParseError.invalidContentRange(text)) { try ContentRange.parse(text) }
    }
}
