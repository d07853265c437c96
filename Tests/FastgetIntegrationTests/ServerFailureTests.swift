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
        #expect(error.code.commandExitStatus == exit && error.httpStatus == status)
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: output + ".part"))
    }

    /// A 204 or 205 to the GET says there is no file at the URL: nothing is saved, exit 66,
    /// whether HEAD said the same or described a file, and whichever GET met it (the first
    /// `bytes=0-`, the probe's `bytes=0-0`, a whole-body stream).
    @Test(arguments: [(204, true), (205, true), (204, false), (205, false)])
    func noContentToTheGETSavesNothing(status: Int, headToo: Bool) throws {
        let file = TestFile(data)
        let server = try TestServer { request in
            request.method == "HEAD" && !headToo ? .file(file) : .status(status, body: "")
        }
        let (result, directory, output) = try download(server.url("/f.bin"))
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .notFound && error.httpStatus == status)
        #expect(error.message == "server answered \(status) Status for \(server.url("/f.bin")): there is no file to save")
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: output + ".part"))
        #expect(!FileManager.default.fileExists(atPath: output + ".fastget"))
        #expect(server.requests.filter { $0.method == "GET" }.count <= 2)
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
        let (result, directory, _) = try download(server.url()) { $0.ioTimeout = .seconds(0.3) }
        defer { directory.remove() }
        server.stop()
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .temporary && error.code == .temporary)
    }
}
