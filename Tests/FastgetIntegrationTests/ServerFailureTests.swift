@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

private let data = testBytes(count: (1 << 20) + 3)

/// A server that fails the first request: an error status, something other than HTTP, or silence.
@Suite struct ServerFailureTests {
    @Test(arguments: [(404, Int32(66)), (403, 77), (500, 69), (503, 75)])
    func mapsErrorStatusesToExitCodes(status: Int, exit: Int32) throws {
        let server = try TestServer { _ in .status(status, body: "no") }
        let (result, directory, output) = try download(server.url())
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.exitCode == exit && error.httpStatus == status)
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: output + ".part"))
    }

    @Test func rejectsGarbageInsteadOfHTTP() throws {
        let server = try TestServer { _ in .raw(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8)) }
        let (result, directory, _) = try download(server.url())
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .protocolViolation && error.message.contains("not HTTP"))
    }

    @Test func timesOutOnAServerThatNeverAnswers() throws {
        let server = try TestServer { _ in .hang }
        let (result, directory, _) = try download(server.url()) { $0.timeout = 0.3 }
        defer { directory.remove() }
        server.stop()
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .temporary && error.exitCode == 75)
    }
}
