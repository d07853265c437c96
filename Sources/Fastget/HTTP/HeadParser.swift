/// Incremental parser for a response head, with limits on size and line count.
///
/// Feed bytes as they arrive; it takes only the bytes of the head and reports how many it
/// consumed, so the body bytes that follow in the same read stay with the caller.
/// Lines may end in CRLF or a bare LF; obs-fold continuation lines are joined with a space.
package struct HeadParser: Sendable {
    /// The largest head accepted, terminator included.
    package static let maximumHeadBytes = 64 * 1024
    /// The most header lines accepted (status line not counted).
    package static let maximumHeaderLines = 100

    private var buffer: [UInt8] = []
    private var lineStart = 0
    private var lineCount = 0

    package init() {}

    /// Consumes bytes of `input` until the head is complete.
    /// - Returns: the head and the number of bytes of `input` it used, or nil when it needs more.
    package mutating func feed(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (head: ResponseHead, consumed: Int)? {
        var index = 0
        // A line (or what has come of it) at a time, appended at once: as if byte by byte, the
        // first bytes must start "HTTP/", then the head must stay within its limit.
        while index < input.count {
            let end = (input[index...].firstIndex(of: 0x0A)).map { $0 + 1 } ?? input.count
            for at in buffer.count..<max(buffer.count, min(HeadParser.prefix.count, buffer.count + end - index))
            where input[index + at - buffer.count] != HeadParser.prefix[at] {
                throw .notHTTP
            }
            if buffer.count + end - index > HeadParser.maximumHeadBytes { throw .headTooLarge(limit: HeadParser.maximumHeadBytes) }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<end]))
            index = end
            guard buffer.last == 0x0A else { continue }
            let lineEnd = buffer.count - 1
            let isEmptyLine = lineEnd == lineStart || (lineEnd == lineStart + 1 && buffer[lineStart] == 0x0D)
            if isEmptyLine {
                let head = try parse()
                return (head, index)
            }
            lineCount += 1
            if lineCount > HeadParser.maximumHeaderLines + 1 { throw .tooManyHeaderLines(limit: HeadParser.maximumHeaderLines) }
            lineStart = buffer.count
        }
        return nil
    }

    /// Convenience for tests and small inputs.
    package mutating func feed(_ bytes: [UInt8]) throws(HTTPParseError) -> (head: ResponseHead, consumed: Int)? {
        var result: Result<(head: ResponseHead, consumed: Int)?, HTTPParseError> = .success(nil)
        bytes.withUnsafeBytes { raw in
            do throws(HTTPParseError) { result = .success(try feed(raw)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// What every response head starts with.
    private static let prefix: [UInt8] = Array("HTTP/".utf8)

    private func lines() -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for index in buffer.indices where buffer[index] == 0x0A {
            var end = index
            if end > start && buffer[end - 1] == 0x0D { end -= 1 }
            lines.append(buffer[start..<end])
            start = index + 1
        }
        lines.removeLast() // the empty line that ends the head
        return lines
    }

    private func parse() throws(HTTPParseError) -> ResponseHead {
        let lines = lines()
        let (minor, status, reason) = try parseStatusLine(lines[0])
        var fields: [ResponseHead.Field] = []
        for line in lines.dropFirst() {
            if let first = line.first, first == 0x20 || first == 0x09 {
                // obs-fold (RFC 9112 §5.2): a user agent replaces it with a space.
                guard !fields.isEmpty else { throw .malformedHeaderLine }
                let continuation = HeadParser.value(line)
                fields[fields.count - 1].value += fields[fields.count - 1].value.isEmpty ? continuation : " " + continuation
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { throw .malformedHeaderLine }
            let name = line[line.startIndex..<colon]
            guard name.allSatisfy(HeadParser.isTokenByte) else { throw .malformedHeaderLine }
            fields.append(.init(name: name.asciiLowercased(), value: HeadParser.value(line[(colon + 1)...])))
        }
        return try ResponseHead(status: status, reason: reason, minorVersion: minor, fields: fields)
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`.
    private func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (Int, Int, String) {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: HeadParser.prefix) else { throw .malformedStatusLine }
        guard bytes[5] == UInt8(ascii: "1"), bytes[6] == UInt8(ascii: "."), bytes[7] >= 0x30, bytes[7] <= 0x39 else {
            throw .unsupportedVersion(String(decoding: bytes.prefix(while: { $0 != 0x20 }), as: UTF8.self))
        }
        guard bytes[8] == 0x20 else { throw .malformedStatusLine }
        let code = bytes[9..<12]
        guard code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes[9] != 0x30 else { throw .malformedStatusLine }
        if bytes.count > 12 && bytes[12] != 0x20 { throw .malformedStatusLine }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let reason = bytes.count > 13 ? String(decoding: bytes[13...], as: UTF8.self) : ""
        return (Int(bytes[7] - 0x30), status, reason)
    }

    /// RFC 9110 `tchar`: a byte of a token (a field name, a method).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A field value without the spaces and tabs around it, a CR or NUL inside it replaced by
    /// a space (RFC 9110 §5.5: reject, or replace with SP), so that a value echoed back (an
    /// ETag in If-Range) cannot carry one into a request. One at either end goes with the spaces.
    private static func value(_ raw: ArraySlice<UInt8>) -> String {
        let trimmed = raw.trimmingBytes { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0 }
        guard trimmed.contains(where: { $0 == 0x0D || $0 == 0 }) else { return String(decoding: trimmed, as: UTF8.self) }
        return String(decoding: trimmed.map { $0 == 0x0D || $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}
