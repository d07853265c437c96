@testable import Fastget
import Testing

/// No CR, LF or NUL reaches a request head, whatever its source; the user's fields replace or
/// remove fastget's own (curl's `-H` rules); the fields fastget must own are refused.
@Suite struct RequestFieldTests {
    let url = try! HTTPURL("http://example.com:8080/f.bin")

    @Test func theRequestWriterRefusesALineBreakOrNULInAnyValue() throws {
        for bad in ["a\r\nInjected: 1", "a\rb", "a\nb", "a\u{0}b"] {
            let request = HTTPRequest(method: "GET", url: url, fields: [("If-Range", bad)])
            #expect(throws: UnsendableField(name: "If-Range")) { try request.serialized() }
            let host = HTTPRequest(method: "GET", url: url, host: bad, fields: [])
            #expect(throws: UnsendableField(name: "Host")) { try host.serialized() }
        }
        let plain = HTTPRequest(method: "GET", url: url, host: "other.example", fields: [("Accept", "*/*")])
        #expect(String(decoding: try plain.serialized(), as: UTF8.self) == "GET /f.bin HTTP/1.1\r\nHost: other.example\r\nAccept: */*\r\n\r\n")
    }

    @Test func aURLCannotBendTheRequestLine() throws {
        #expect(throws: URLParseError.self) { try HTTPURL("http://h/a\r\nX: 1") }
        #expect(throws: URLParseError.self) { try HTTPURL("http://h/a\u{0}b") }
        #expect(throws: URLParseError.self) { try HTTPURL("http://h/").resolving("/a\nb") }
        let spaced = try HTTPURL("http://h/a b HTTP/1.1?q= x")
        let head = String(decoding: try HTTPRequest(method: "GET", url: spaced, fields: []).serialized(), as: UTF8.self)
        #expect(head == "GET /a%20b%20HTTP/1.1?q=%20x HTTP/1.1\r\nHost: h\r\n\r\n")
    }

    @Test func aServersCROrNULInAFieldValueBecomesASpace() throws {
        var parser = HeadParser()
        let bytes = Array("HTTP/1.1 200 OK\r\nETag: \"a\rX-Injected: 1\u{0}\"\r\n\r\n".utf8)
        let (head, _) = try #require(try bytes.withUnsafeBytes { try parser.feed($0) })
        #expect(head.etag == "\"a X-Injected: 1 \"")
    }

    @Test func aCROrNULInAFoldedLineBecomesASpaceToo() throws {
        var parser = HeadParser()
        let bytes = Array("HTTP/1.1 200 OK\r\nLast-Modified: x\r\n y\u{0}z\rw \u{0}\r\n\r\n".utf8)
        let (head, _) = try #require(try bytes.withUnsafeBytes { try parser.feed($0) })
        #expect(head.fields == [.init(name: "last-modified", value: "x y z w")])
    }

    @Test func theUsersFieldsReplaceOrRemoveFastgetsOwn() {
        let standard: [(name: String, value: String)] = [("User-Agent", "fastget/1"), ("Accept", "*/*"), ("Accept-Encoding", "identity")]
        let merged = UserHeaderField.merged(
            standard, [("accept-encoding", "gzip"), ("X-Trace", "1"), ("User-Agent", ""), ("X-Empty", ""), ("X-Trace", "2")])
        #expect(merged.map { "\($0.name): \($0.value)" } == ["Accept: */*", "accept-encoding: gzip", "X-Trace: 1", "X-Trace: 2"])
    }

    @Test(arguments: [
        ("Range", "bytes=5-10", "Range is fastget's to set: it asks for the byte ranges itself (segments, resume)"),
        ("if-range", "\"e\"", "if-range is fastget's to set: it sends the file's validator with every range so that two versions are never mixed"),
        ("Content-Length", "5", "Content-Length is fastget's to set: its requests have no body, and a server would wait for one"),
        ("Transfer-Encoding", "chunked", "Transfer-Encoding is fastget's to set: its requests have no body, and a server would wait for one"),
        ("Connection", "close", "Connection is fastget's to set: it decides which connections are kept open"),
        ("If-None-Match", "\"e\"", "If-None-Match is fastget's to set: a 304 answer is no file (timestamping asks whether the file changed)"),
        ("Host", "", "Host cannot be removed: HTTP/1.1 requires it"),
        ("X-A", "1\r\nX-B: 2", "the X-A field contains a line break or NUL byte"),
        ("X-A", "a\u{01}b\u{7F}", "the X-A field contains a control character"),
        ("X A", "1", "'X A' is not a header field name"),
    ])
    func refusesFieldsFastgetMustOwnOrCannotSend(name: String, value: String, problem: String) {
        #expect(UserHeaderField.problem(name: name, value: value) == problem)
        #expect { try HeaderField(name: name, value: value) } throws: { ($0 as? FastgetError)?.message == problem }
        var options = DownloadOptions()
        options.headerFields = [HeaderField(unchecked: name, value)] // as the deprecated `headers` makes it
        #expect(throws: FastgetError.self) { try options.validate() }
    }

    @Test func anEmbeddersUserAgentWithALineBreakIsRefused() {
        var options = DownloadOptions()
        options.userAgent = "x\r\nAuthorization: Bearer S"
        do throws(FastgetError) {
            _ = try Download(url: "http://127.0.0.1:9/f", options: options)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .usage && error.message == "the user agent contains a line break or NUL byte")
        }
    }
}
