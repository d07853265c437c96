#if FASTGET_FAULTS
@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A stop asked for while the digest of a file is checked ends the check within one read: the
/// `.part` and journal stay (or the complete file, untouched), and the rerun checks again.
@Suite struct DigestStopTests {
    let data = testBytes(count: 4 << 20, seed: 1125)

    func options(_ directory: TemporaryDirectory) throws -> DownloadOptions {
        var options = DownloadOptions()
        options.output = directory.file("d.bin")
        options.segments = 2
        options.checksum = try Checksum("sha-256=" + SHA256.hex(data))
        return options
    }

    @Test func aPauseDuringTheFinalCheckKeepsThePartAndTheJournal() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url(), options: try options(directory))
        let part = directory.file("d.bin.part")
        FaultInjection.beforeDigestReads(of: part) { download.pause() }
        defer { FaultInjection.beforeDigestReads(of: part, nil) }
        let error = try #require(throws: FastgetError.self) { try download.run() }
        #expect(error.code == .cancelled && error.code == .cancelled)
        #expect(error.remedy == .resume(journal: directory.file("d.bin.fastget")))
        #expect(download.state == .paused)
        #expect(!FileManager.default.fileExists(atPath: directory.file("d.bin")))
        #expect(SHA256.hex(ofFile: part) == SHA256.hex(data))
        let journal = try Journal.decode(Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("d.bin.fastget")))))
        #expect(journal.bytesWritten == Int64(data.count))

        FaultInjection.beforeDigestReads(of: part, nil)
        let served = server.requests.count
        let report = try Download(url: server.url(), options: try options(directory)).run()
        #expect(report.verifiedDigest == (try options(directory)).checksum)
        #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
        // The rerun probes, checks the bytes on disk again, and fetches none of them.
        #expect(server.requests.dropFirst(served).allSatisfy { $0.method == "HEAD" }, "\(server.requests.dropFirst(served))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["d.bin"])
    }

    @Test func aPauseDuringTheCheckOfACompleteFileLeavesItUntouched() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("d.bin")
        try Data(data).write(to: URL(fileURLWithPath: file))
        var options = try options(directory)
        options.continuePartial = true
        let download = try Download(url: server.url(), options: options)
        FaultInjection.beforeDigestReads(of: file) { download.pause() }
        defer { FaultInjection.beforeDigestReads(of: file, nil) }
        let error = try #require(throws: FastgetError.self) { try download.run() }
        #expect(error.code == .cancelled && error.code == .cancelled)
        #expect(error.remedy == .checkAgain(path: file) && error.hint == "\(file) is untouched; run the download again to check it")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["d.bin"])

        FaultInjection.beforeDigestReads(of: file, nil)
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.verifiedDigest == options.checksum)
        #expect(SHA256.hex(ofFile: file) == SHA256.hex(data))
    }
}
#endif
