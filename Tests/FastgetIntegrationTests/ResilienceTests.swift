import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Runs the download, which must fail with a `FastgetError` that `matches`.
private func expectFailure(
    _ url: String, _ options: DownloadOptions, sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (FastgetError) -> Bool
) {
    #expect(sourceLocation: sourceLocation) {
        try Download(url: url, options: options).run()
    } throws: { error in
        guard let error = error as? FastgetError else { return false }
        return matches(error)
    }
}

@Suite struct ResilienceTests {
    let data = testBytes(count: 1 << 20, seed: 41)

    @Test func honoursRetryAfterOnABusyServer() throws {
        let busy = DropPlan(afterBytes: 0, times: 1) // used only as a one-shot flag
        let file = TestFile(data)
        let server = try TestServer { request in
            // The probe's GET (the first range) is served; the second range meets a busy server.
            if request.method == "GET" && request.header("Range") != "bytes=0-" && busy.take() {
                return .status(503, body: "busy", fields: [("Retry-After", "1")])
            }
            return .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 256 * 1024
        options.stealsWork = false
        options.hedgesTails = false
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.retries == 1)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.count == 3)
        // The retry waited for the second the server asked for, not the 0.25 s back-off.
        guard gets.count == 3 else { return }
        #expect(gets[2].received - gets[1].received >= 0.95, "\(gets[2].received - gets[1].received) s")
    }

    @Test func refusesAFileLargerThanTheFreeSpaceBeforeFetchingIt() throws {
        var huge = TestFile([])
        huge.content = .file(path: "/dev/null", length: 10 << 40) // a server announcing 10 TiB
        let server = try TestServer(file: huge)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("huge.iso")
        expectFailure(server.url(), options) { error in
            error.code == .localIO && error.message.hasPrefix("not enough space for \(directory.file("huge.iso")): it needs 10.0 TiB")
        }
        // The probe's GET only: its answer is closed unread, and nothing is written.
        #expect(server.requests.map(\.method) == ["GET"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func boundsAHeadThatTricklesIn() throws {
        let head = Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Slow: yes\r\n", count: 20) + "\r\n").utf8)
        let server = try TestServer { _ in .trickle(head, interval: 0.05) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.ioTimeout = .seconds(0.5) // each byte arrives well within it; the head as a whole does not
        expectFailure(server.url(), options) { error in
            error.code == .temporary && error.message.hasPrefix("the response head did not arrive within the timeout")
        }
        server.stop()
    }

    /// Apache with `AddEncoding gzip .gz` labels a `.tar.gz` as gzip-encoded: the bytes as sent
    /// are the file the user wants (curl and wget save them so), and the ranges are over them.
    @Test(arguments: ["gzip", "br, identity"])
    func savesABodyInAnEncodingItDidNotAskForAsSent(encoding: String) throws {
        var file = TestFile(data)
        file.extraFields = ["Content-Encoding: \(encoding)"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.segments = 4
        options.minimumSegmentSize = 64 * 1024
        options.stealsWork = false // exactly one request per segment
        options.hedgesTails = false
        let download = try Download(url: server.url(), options: options)
        let events = Locked<[String]>([])
        download.onEvent { event in
            if case .notice(let text) = event { events.withLock { $0.append(text) } }
        }
        var notices: [String] = []
        let report = try download.run(notice: { notices.append($0) })
        #expect(report.workers == 4)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let expected = "server sent Content-Encoding \(encoding.hasPrefix("br") ? "br" : "gzip"); saving the bytes as sent"
        #expect(notices == [expected], "once per download, through the notice shortcut")
        #expect(events.withLock { $0 } == [expected], "and as an event")
        #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        #expect(server.requests.filter { $0.header("Range") != nil }.count == 4)
    }

    @Test func refusesAHeadOf200KilobytesOfFields() throws {
        let head = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Padding: " + String(repeating: "p", count: 1000) + "\r\n", count: 200) + "\r\n"
        let server = try TestServer { _ in .raw(Array(head.utf8)) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        expectFailure(server.url(), options) { error in
            error.code == .protocolViolation && error.message.hasSuffix("response head larger than 65536 bytes")
        }
    }

    @Test func laterConnectionsResumeTheFirstTLSSession() throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        // TLS 1.2, so that the probe's session is resumable when its handshake ends (a TLS 1.3
        // ticket may arrive after the probe is done, and the segments would race it).
        let identity = try TestIdentity(directory: certificates, tls12Only: true)
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(tls: identity))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 64 * 1024
        options.stealsWork = false
        options.hedgesTails = false
        options.caFile = identity.certificatePath
        options.output = directory.file("f.bin")
        let report = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        // One full handshake (the probe's); every other connection resumed. How many there are
        // is the scheduler's call (a worker that finds its segment's neighbour unclaimed takes it
        // on its kept connection; a retry adds one), but there is at least one beside the probe's,
        // which is closed (the file is larger than a segment).
        #expect(
            report.connections >= 2 && report.fullHandshakes == 1 && report.resumedHandshakes == report.connections - 1,
            "\(report.connections) connections, \(report.fullHandshakes) full, \(report.resumedHandshakes) resumed, \(report.retries) retries")
        // The probe's handshake is full; the segments' connections resume its session.
        let requests = server.requests
        #expect(requests.first?.header("Range") == "bytes=0-" && requests.first?.tlsResumed == false)
        let gets = requests.dropFirst().filter { $0.method == "GET" }
        #expect(Set(requests.compactMap { $0.header("Range") }).count >= 4, "each of the four segments asked for")
        #expect(!gets.isEmpty && gets.allSatisfy(\.tlsResumed), "\(gets.map(\.tlsResumed))")
    }
}
