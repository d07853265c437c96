/// A parsed response head: status, version and header fields (names lower-cased, order kept).
package struct ResponseHead: Sendable, Equatable {
    package var status: Int
    package var reason: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    package var fields: [Field]
    /// The validated `Content-Length`, nil when absent.
    package var contentLength: Int64?

    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    package init(status: Int, reason: String, minorVersion: Int, fields: [Field]) throws(HTTPParseError) {
        self.status = status
        self.reason = reason
        self.minorVersion = minorVersion
        self.fields = fields
        self.contentLength = try ResponseHead.parseContentLength(fields.filter { $0.name == "content-length" }.map(\.value))
    }

    /// Every value of the field `name` (lower case), in order.
    package func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// The first value of the field `name` (lower case).
    package func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Comma-separated tokens of every `name` field, lower-cased.
    package func tokens(_ name: String) -> [String] {
        var tokens: [String] = []
        for field in fields where field.name == name {
            guard field.value.utf8.allSatisfy({ $0 < 0x80 }) else {
                // Split by characters (a comma with a combining mark is no comma) and lower-cased by Unicode.
                tokens += field.value.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty }
                continue
            }
            for piece in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let token = piece.trimmingBytes()
                if !token.isEmpty { tokens.append(token.asciiLowercased()) }
            }
        }
        return tokens
    }

    /// The body is chunked when `chunked` is the final transfer coding (RFC 9112 §6.3).
    package var isChunked: Bool { tokens("transfer-encoding").last == "chunked" }

    package var hasTransferEncoding: Bool { !values("transfer-encoding").isEmpty }

    /// A body may arrive in no transfer coding but `chunked`: fastget sends no `TE`, so a server
    /// may apply no other (RFC 9112 §6.1, §7.4), and one it did could not be undone here, so its
    /// bytes would be saved still encoded.
    package func checkTransferCoding() throws(HTTPParseError) {
        guard hasTransferEncoding, tokens("transfer-encoding") != ["chunked"] else { return }
        throw .unsupportedTransferEncoding(values("transfer-encoding").joined(separator: ", "))
    }

    /// Whether the server lets the connection carry another request after this response.
    package var allowsKeepAlive: Bool {
        let connection = tokens("connection")
        if connection.contains("close") { return false }
        return minorVersion >= 1 || connection.contains("keep-alive")
    }

    /// The parsed `Content-Range`, nil when absent.
    package func contentRange() throws(HTTPParseError) -> ContentRange? {
        guard let value = value("content-range") else { return nil }
        return try ContentRange.parse(value)
    }

    package var etag: String? { value("etag") }
    package var lastModified: String? { value("last-modified") }
    package var location: String? { value("location") }
    package var contentDisposition: String? { value("content-disposition") }
    package var acceptsByteRanges: Bool? {
        let tokens = tokens("accept-ranges")
        if tokens.isEmpty { return nil }
        return tokens.contains("bytes")
    }

    /// Repeated fields and comma lists must all carry one value (RFC 9110 §8.6).
    private static func parseContentLength(_ values: [String]) throws(HTTPParseError) -> Int64? {
        var result: Int64?
        for field in values {
            for item in field.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingASCIISpaces()
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let number = Int64(text)
                else {
                    throw .invalidContentLength(field)
                }
                if let result, result != number { throw .conflictingContentLength }
                result = number
            }
        }
        return result
    }
}
