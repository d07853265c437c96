import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Over TLS, the end of a close-delimited body counts only when the server says so (close_notify):
/// a TCP FIN alone can be forged by anyone on the path.
@Suite struct CloseNotifyTests {
    let data = testBytes(count: 300_000, seed: 63)

    @Test(arguments: [true, false])
    func aBodyRunningToTheCloseEndsOnlyAtACloseNotify(closeNotify: Bool) throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates)
        var file = TestFile(data)
        file.framing = .untilClose
        file.honorsRange = false
        file.advertisesRanges = false
        file.closeNotify = closeNotify
        let server = try TestServer(file: file, TestServer.Configuration(tls: identity))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.caFile = identity.certificatePath
        options.retries = 1
        options.output = directory.file("out.bin")
        let outcome: Result<DownloadReport, FastgetError>
        do throws(FastgetError) { outcome = .success(try Download(url: server.url(), options: options).run()) } catch { outcome = .failure(error) }
        if closeNotify {
            #expect(try outcome.get().bytes == Int64(data.count))
            #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
            #expect(plainGets(server) == 1)
        } else {
            guard case .failure(let error) = outcome else { Issue.record("a body without close_notify was accepted"); return }
            #expect(error.code == .temporary && error.message.contains("close_notify"), "\(error.message)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("out.bin")))
            #expect(plainGets(server) == 2, "the first attempt and one retry")
        }
    }
}
