@testable import Fastget
import Glibc
import Testing

@Suite struct ErrorTests {
    @Test(arguments: [
        (FastgetError.Code.usage, Int32(64)), (.clientError, 65), (.notFound, 66), (.hostNotFound, 68), (.unavailable, 69),
        (.serverError, 69), (.cannotCreateOutput, 73), (.localIO, 74), (.temporary, 75),
        (.protocolViolation, 76), (.tls, 76), (.accessDenied, 77), (.cancelled, 130),
    ])
    func eachCodeHasItsExitCode(code: FastgetError.Code, exit: Int32) {
        #expect(code.commandExitStatus == exit)
        #expect(FastgetError.Code(rawValue: code.rawValue) == code)
    }

    @Test(arguments: [
        (404, Int32(66)), (410, 66), (401, 77), (403, 77), (407, 77), (408, 75), (429, 75), (502, 75),
        (503, 75), (504, 75), (425, 75), (500, 69), (501, 69), (505, 69), (416, 76), (400, 65), (405, 65),
        (409, 65), (418, 65), (451, 65),
    ])
    func httpStatusesMapToExitCodes(status: Int, exit: Int32) throws {
        let error = FastgetError.status(status, reason: "Reason", url: try HTTPURL("http://h/f"))
        #expect(error.code.commandExitStatus == exit)
        // Only these may pass on their own; the rest answer the same again.
        #expect(error.isRetryable == [408, 425, 429, 500, 502, 503, 504].contains(status), "\(status)")
        #expect(error.httpStatus == status)
        #expect(error.message == "server answered \(status) Reason for http://h/f")
    }

    @Test func systemErrorsBecomeCodes() throws {
        let url = try HTTPURL("http://h:81/f")
        #expect(FastgetError.from(SystemError("connect", errno: ECONNREFUSED), url: url).code == .unavailable)
        #expect(FastgetError.from(SystemError("connect", errno: ETIMEDOUT), url: url).code == .temporary)
        #expect(FastgetError.from(SystemError("recv", errno: EAGAIN), url: url).code == .temporary)
        #expect(FastgetError.from(SystemError("recv", errno: ECONNRESET), url: url).isRetryable)
        #expect(FastgetError.from(TransferError.truncatedBody(received: 1, expected: 2), url: url).isRetryable)
        #expect(FastgetError.from(HTTPParseError.notHTTP, url: url).code == .protocolViolation)
        #expect(FastgetError.from(TLSError(kind: .verification, reason: "x"), url: url).code == .tls)
        #expect(FastgetError.local(SystemError("pwrite", errno: ENOSPC), path: "f").code == .localIO)
        #expect(FastgetError.local(SystemError("open", errno: EACCES), path: "f", creating: true).code == .cannotCreateOutput)
        #expect(FastgetError.from(SystemError("connect", errno: ECONNREFUSED), url: url).message == "connection refused by h:81")
    }

    @Test func unknownCodesStayGeneric() {
        let code = FastgetError.Code(rawValue: "something-new")
        #expect(code.commandExitStatus == 1 && !code.isRetryable)
    }

    @Test func optionsAreValidated() {
        var options = DownloadOptions()
        options.segments = 65
        #expect(throws: FastgetError.self) { try Download(url: "http://h/f", options: options) }
        options.segments = 0
        #expect(throws: FastgetError.self) { try Download(url: "http://h/f", options: options) }
        options.segments = 4
        options.headerFields = [HeaderField(unchecked: "X-Evil", "a\r\nInjected: yes")]
        #expect(throws: FastgetError.self) { try Download(url: "http://h/f", options: options) }
        #expect(throws: FastgetError.self) { try Download(url: "gopher://h/f") }
    }
}
