// Helpers shared by the tests of what fastget accepts from the wire.
import FastgetTestSupport
import Foundation
import Testing

/// Runs the built `fastget` in `directory`; with `stdout`, its standard output goes to that file
/// (binary bytes survive); `environment` replaces the test's own. Returns the result and the seconds it took.
func timedFastget(
    _ arguments: [String], in directory: TemporaryDirectory, stdout: String? = nil,
    environment: [String: String]? = nil, timeout: Double = 60
) throws -> (result: ProcessResult, seconds: Double) {
    let started = Date()
    let result: ProcessResult
    if let stdout {
        let shell = try #require(findExecutable("sh"))
        let command = ([try fastgetExecutable()] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(stdout)'"
        result = try runProcess(shell, ["-c", command], in: directory.path, environment: environment, timeout: timeout)
    } else {
        result = try runProcess(try fastgetExecutable(), arguments, in: directory.path, environment: environment, timeout: timeout)
    }
    return (result, Date().timeIntervalSince(started))
}

/// `head` (ending in an empty line, or not yet) and `body`, sent as they are; then the close.
func rawResponse(_ head: String, _ body: some Collection<UInt8> = []) -> TestResponse {
    .raw(Array(head.utf8) + Array(body))
}

/// The answer to the probe's `bytes=0-` GET for a file of `length` bytes: its head, then the
/// connection closes (the worker that takes it finds the body cut short and asks again).
func probeHeadOnly(length: Int, etag: String = "\"fastget-test-1\"") -> TestResponse {
    rawResponse(
        "HTTP/1.1 206 Partial Content\r\nETag: \(etag)\r\nContent-Range: bytes 0-\(length - 1)/\(length)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
    )
}

/// How many GETs without a Range header (whole-body requests) the server saw.
func plainGets(_ server: TestServer) -> Int {
    server.requests.filter { $0.method == "GET" && $0.header("Range") == nil }.count
}
