import Foundation
import Synchronization

/// A request as the test server received it.
public struct RecordedRequest: Sendable {
    public let method: String
    public let target: String
    /// Header fields in order, names as sent.
    public let fields: [(name: String, value: String)]
    /// The head exactly as received.
    public let raw: String
    /// Which connection carried it: 0 for the first the server accepted, then 1, 2, …
    public let connection: Int
    /// Monotonic seconds when its head was complete.
    public let received: Double
    /// Whether its connection's TLS handshake resumed an earlier session.
    public let tlsResumed: Bool

    /// The first value of a field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A response the server finished sending (completely or not): for throughput and tail timing.
public struct ServedResponse: Sendable {
    public let connection: Int
    public let method: String
    /// The request target it answered.
    public let target: String
    public let status: Int
    /// Body bytes actually sent.
    public let bodyBytes: Int64
    /// Monotonic seconds (`CLOCK_MONOTONIC`) when the head was sent and when the body ended.
    public let started: Double
    public let finished: Double
    /// When its last write went through. For a response the client cut, `finished` is when the
    /// server noticed (its next write failed), which may be long after the client let go; this
    /// is before.
    public let lastWrite: Double
}

/// How the test server answers one request.
public enum TestResponse: Sendable {
    /// Serve a file, with ranges and the misbehaviour its settings ask for.
    case file(TestFile)
    case redirect(status: Int, location: String)
    case status(Int, body: String = "", fields: [(name: String, value: String)] = [])
    /// Send these bytes, then close.
    case raw([UInt8])
    /// Send nothing until the server stops or the client goes away.
    case hang
    /// Send these bytes one at a time, one every `interval` seconds (a slowloris server).
    case trickle([UInt8], interval: Double)
    /// Send `sent` at once, then `trickled` one byte every `interval` seconds, then close: a head
    /// on time followed by a body (or chunked trailer) that crawls.
    case trickleAfter(sent: [UInt8], trickled: [UInt8], interval: Double)
    /// Send `head`, then what `rest` returns (it may wait for an event, bounded), then close:
    /// a client is left waiting in the middle of a body until the test lets it go on.
    case staged(head: [UInt8], rest: @Sendable () -> [UInt8])
}

extension TestResponse {
    /// `content` (or the range the request asks for, as a 206) with its head at once and its
    /// body one byte every `interval` seconds: a server that answers and then crawls. With
    /// `ranges` false, the whole file as a 200 of unknown length (a single stream).
    /// `fields` go into the head as they are (a validator: `ETag: "a"`).
    public static func trickling(
        _ content: [UInt8], for request: RecordedRequest, interval: Double, ranges: Bool = true, fields: [String] = []
    ) -> TestResponse {
        let fields = fields.map { $0 + "\r\n" }.joined()
        guard ranges else {
            return .trickleAfter(sent: Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\(fields)\r\n".utf8), trickled: content, interval: interval)
        }
        var body = 0..<Int64(content.count)
        var head = "HTTP/1.1 200 OK\r\nAccept-Ranges: bytes\r\n" + fields
        if let value = request.header("Range"), let range = TestServer.parseRange(value, total: Int64(content.count)), let range {
            body = range
            head = "HTTP/1.1 206 Partial Content\r\n\(fields)Content-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/\(content.count)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return .trickleAfter(sent: Array(head.utf8), trickled: Array(content[Int(body.lowerBound)..<Int(body.upperBound)]), interval: interval)
    }
}

/// Cuts ranged responses short: the first `times` of them close after `afterBytes` body bytes.
public final class DropPlan: Sendable {
    public let afterBytes: Int
    private let remaining: Atomic<Int>

    public init(afterBytes: Int, times: Int = 1) {
        self.afterBytes = afterBytes
        remaining = Atomic(times)
    }

    /// Spends one of the plan's times: true while any are left (also a one-shot switch for handlers).
    public func take() -> Bool {
        while true {
            let left = remaining.load(ordering: .relaxed)
            if left <= 0 { return false }
            if remaining.compareExchange(expected: left, desired: left - 1, ordering: .relaxed).exchanged { return true }
        }
    }
}

/// A file served by the test server, and how to misbehave while serving it.
public struct TestFile: Sendable {
    public enum Framing: Sendable, Equatable {
        case contentLength
        case chunked(chunkSize: Int)
        /// No length: the body ends when the connection closes.
        case untilClose
    }

    /// Where the bytes come from: memory, or a file on disk (sent with `sendfile` on plain HTTP).
    public enum Content: Sendable {
        case memory([UInt8])
        case file(path: String, length: Int64)
    }

    public var content: Content
    public var etag: String? = "\"fastget-test-1\""
    public var lastModified: String? = "Sat, 21 Nov 2026 10:00:00 GMT"
    /// Answer `Range` with 206 (false: always 200 with the whole body, like `python -m http.server`).
    public var honorsRange = true
    /// Compare `If-Range` with the validators (false: serve the range whatever it says, as a
    /// server that lies about versions would).
    public var honorsIfRange = true
    /// Send `Accept-Ranges: bytes`.
    public var advertisesRanges = true
    /// Answer HEAD (false: 405).
    public var allowsHead = true
    public var framing: Framing = .contentLength
    /// Close ranged responses early, per the plan.
    public var drop: DropPlan?
    /// Added to both ends of every Content-Range sent (a lying server).
    public var contentRangeShift: Int64 = 0
    /// Keep connections open between requests.
    public var keepAlive = true
    /// Extra header lines sent with every answer ("Content-Encoding: gzip").
    public var extraFields: [String] = []
    /// Bytes sent after every GET body, beyond its length (a server that sends too much).
    public var excess: [UInt8] = []
    /// Over TLS, end a close-delimited body with a close_notify, as real servers do (false: only
    /// the TCP FIN, which is all an attacker on the path can forge).
    public var closeNotify = true

    public init(_ bytes: [UInt8]) { content = .memory(bytes) }

    /// Serves the file at `path` (its length is read now).
    public init(path: String) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        content = .file(path: path, length: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }

    public var length: Int64 {
        switch content {
        case .memory(let bytes): Int64(bytes.count)
        case .file(_, let length): length
        }
    }
}
