import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A mirror is named as given: where its redirects led can carry a signed token, which must not
/// reach notices, the summary or JSON. A mirror that does not answer its probe does not hold
/// the start for long.
@Suite struct MirrorProbeTests {
    @Test func aDroppedMirrorsSignedRedirectTargetIsNotReported() throws {
        let data = testBytes(count: 4 << 20, seed: 101)
        var file = TestFile(data)
        file.etag = "\"a\""
        let primary = try TestServer(file: file)
        let mirrorFile = file
        let mirror = try TestServer { request in
            if !request.target.hasPrefix("/signed") { return .redirect(status: 302, location: "/signed?X-Amz-Signature=secret") }
            return request.method == "HEAD" ? .file(mirrorFile) : .status(503, body: "busy")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 256 * 1024
        options.retries = 1
        options.mirrors = [mirror.url()]
        options.output = directory.file("s.bin")
        let download = try Download(url: primary.url(), options: options)
        let notices = Locked<[String]>([])
        download.onEvent { event in
            if case .notice(let text) = event { notices.withLock { $0.append(text) } }
        }
        let report = try download.run()
        #expect(SHA256.hex(ofFile: directory.file("s.bin")) == SHA256.hex(data))
        let dropped = try #require(report.sources.last?.dropped, "\(report.sources)")
        #expect(!dropped.contains("secret") && report.sources.last?.url == mirror.url(), "\(dropped)")
        #expect(notices.withLock { $0 }.allSatisfy { !$0.contains("secret") }, "\(notices.withLock { $0 })")
        #expect(notices.withLock { $0 }.contains { $0.hasPrefix("dropped \(mirror.url()) for this run: ") })
    }

    @Test func queriesAreCutExceptTheURLAsGiven() {
        let text = "HTTP 503 (https://cdn.example/f?sig=abc), from http://m.example/f?token=x and http://m.example/g"
        #expect(
            HTTPURL.redactingQueries(in: text, keeping: "http://m.example/f?token=x")
                == "HTTP 503 (https://cdn.example/f?…), from http://m.example/f?token=x and http://m.example/g")
    }

    @Test func aMirrorThatNeverAnswersItsProbeIsLeftOutAtTheDeadline() throws {
        let data = testBytes(count: 4 << 20, seed: 102)
        let primary = try TestServer(file: TestFile(data))
        let silent = try TestServer { _ in .hang }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.connectionTimeout = .seconds(0.5) // the mirrors' probes get at most this long
        options.ioTimeout = .seconds(60)
        options.mirrors = [silent.url()]
        options.output = directory.file("h.bin")
        let download = try Download(url: primary.url(), options: options)
        let notices = Locked<[String]>([])
        download.onEvent { event in
            if case .notice(let text) = event { notices.withLock { $0.append(text) } }
        }
        let report = try download.run()
        #expect(SHA256.hex(ofFile: directory.file("h.bin")) == SHA256.hex(data))
        #expect(notices.withLock { $0 }.contains("mirror \(silent.url()) not used: no answer within 0.5 s"), "\(notices.withLock { $0 })")
        #expect(report.seconds < 30, "it did not wait for the 60 s read timeout: \(report.seconds) s")
        silent.stop()
    }
}
