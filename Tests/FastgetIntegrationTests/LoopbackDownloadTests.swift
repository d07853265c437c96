@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// Downloads `url` into a fresh directory with `configure`d options.
private func download(_ url: String, segments: Int = 4, configure: (inout DownloadOptions) -> Void = { _ in })
    throws -> (report: Result<DownloadReport, FastgetError>, directory: TemporaryDirectory, output: String)
{
    let directory = try TemporaryDirectory()
    var options = DownloadOptions()
    options.segments = segments
    options.minimumSegmentSize = 64 * 1024
    options.output = directory.file("out.bin")
    options.timeout = 10
    options.connectTimeout = 5
    // These tests assert the exact requests of a plan; stealing has tests of its own.
    options.stealing = false
    options.hedging = false
    configure(&options)
    let download = try Download(url: url, options: options)
    let result: Result<DownloadReport, FastgetError>
    do throws(FastgetError) { result = .success(try download.run()) } catch { result = .failure(error) }
    return (result, directory, options.output!)
}

private let data = testBytes(count: (1 << 20) + 3)

@Suite struct LoopbackDownloadTests {
    @Test func fetchesEachSegmentWithExactlyTheRangeItNeeds() throws {
        let server = try TestServer(file: TestFile(data))
        let (result, directory, output) = try download(server.url(), segments: 4)
        defer { directory.remove() }
        let report = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(report.bytes == Int64(data.count) && report.segments == 4 && report.retries == 0)
        #expect(!FileManager.default.fileExists(atPath: output + ".part"))

        let requests = server.requests
        #expect(requests.first?.method == "HEAD")
        let ranges = Set(requests.filter { $0.method == "GET" }.compactMap { $0.header("Range") })
        // 1 MiB + 3 bytes over 4: 262145, 262145, 262145, 262144 bytes.
        #expect(ranges == ["bytes=0-262144", "bytes=262145-524289", "bytes=524290-786434", "bytes=786435-1048578"])
        for request in requests {
            #expect(request.header("Host") == "127.0.0.1:\(server.port)")
            #expect(request.header("User-Agent") == "fastget/\(Fastget.version)")
            #expect(request.header("Accept-Encoding") == "identity")
            #expect(request.header("Authorization") == nil)
        }
    }

    @Test func downloadsFromAnIPv6Literal() throws {
        let server = try TestServer(ipv6: true) { _ in .file(TestFile(data)) }
        let (result, directory, output) = try download(server.url(), segments: 2)
        defer { directory.remove() }
        _ = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.allSatisfy { $0.header("Host") == "[::1]:\(server.port)" })
    }

    @Test func reusesTheProbeConnectionForTheTransfer() throws {
        let server = try TestServer(file: TestFile(Array(data.prefix(1000))))
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        _ = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data.prefix(1000)))
        #expect(server.requests.map(\.method) == ["HEAD", "GET"])
        #expect(server.requests.map(\.connection) == [0, 0])
        #expect(server.connectionCount == 1)
    }

    @Test func fallsBackToOneStreamWhenRangesAreIgnored() throws {
        var file = TestFile(data)
        file.honorsRange = false
        file.advertisesRanges = false
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url(), segments: 8)
        defer { directory.remove() }
        #expect(try result.get().segments == 1)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let gets = server.requests.filter { $0.method == "GET" }
        // The bytes=0-0 probe is answered with 200; then exactly one plain GET.
        #expect(gets.map { $0.header("Range") } == ["bytes=0-0", nil])
    }

    @Test func probesWithARangedGetWhenHeadIsRefused() throws {
        var file = TestFile(data)
        file.allowsHead = false
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url(), segments: 2)
        defer { directory.remove() }
        #expect(try result.get().segments == 2)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let requests = server.requests
        #expect(requests.prefix(2).map(\.method) == ["HEAD", "GET"])
        #expect(requests[1].header("Range") == "bytes=0-0")
        #expect(Set(requests.dropFirst(2).compactMap { $0.header("Range") }) == ["bytes=0-524289", "bytes=524290-1048578"])
    }

    @Test(arguments: [TestFile.Framing.chunked(chunkSize: 7001), .untilClose])
    func streamsBodiesOfUnknownLength(framing: TestFile.Framing) throws {
        var file = TestFile(data)
        file.framing = framing
        file.honorsRange = false
        file.advertisesRanges = false
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url())
        defer { directory.remove() }
        let report = try result.get()
        #expect(report.bytes == Int64(data.count) && report.segments == 1)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    @Test func readsChunkedRangedResponses() throws {
        var chunked = TestFile(data)
        chunked.framing = .chunked(chunkSize: 4093)
        let file = chunked
        let server = try TestServer { request in
            // HEAD must announce a length for the download to be segmented.
            var headFile = file
            if request.method == "HEAD" { headFile.framing = .contentLength }
            return .file(headFile)
        }
        let (result, directory, output) = try download(server.url(), segments: 3)
        defer { directory.remove() }
        #expect(try result.get().segments == 3)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    @Test(arguments: [0, 1])
    func downloadsTinyFiles(size: Int) throws {
        let bytes = Array(data.prefix(size))
        let server = try TestServer(file: TestFile(bytes))
        let (result, directory, output) = try download(server.url())
        defer { directory.remove() }
        #expect(try result.get().bytes == Int64(size))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(bytes))
    }

    @Test func resumesASegmentFromItsWatermarkAfterADrop() throws {
        var file = TestFile(data)
        file.drop = DropPlan(afterBytes: 100_000, times: 1)
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        #expect(try result.get().retries == 1)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let ranges = server.requests.filter { $0.method == "GET" }.map { $0.header("Range") }
        #expect(ranges == ["bytes=0-1048578", "bytes=100000-1048578"])
    }

    @Test func neverWritesAResponseWithTheWrongContentRange() throws {
        var lying = TestFile(data)
        lying.contentRangeShift = 1
        let file = lying
        let server = try TestServer { request in
            var answer = file
            if request.method == "HEAD" { answer.contentRangeShift = 0 }
            return .file(answer)
        }
        let (result, directory, output) = try download(server.url(), segments: 2)
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .protocolViolation && error.exitCode == 76)
        #expect(error.message.contains("Content-Range"))
        #expect(!FileManager.default.fileExists(atPath: output))
        // The .part file holds no byte of the rejected responses (it is still all zeros).
        let part = try Data(contentsOf: URL(fileURLWithPath: output + ".part"))
        #expect(part.count == data.count && part.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [TestFile.Framing.contentLength, .untilClose])
    func usesOnlyTheAskedBytesOfABodyThatRunsLong(framing: TestFile.Framing) throws {
        // Every GET body is followed by garbage. HEAD is refused, so the probe's `bytes=0-0` GET
        // (garbage after its byte) leaves a connection the small file's single range reuses.
        var file = TestFile(Array(data.prefix(50_000)))
        file.excess = Array("HTTP/1.1 200 OK\r\nGARBAGE".utf8) + [UInt8](repeating: 0xEE, count: 4096)
        file.allowsHead = false
        file.framing = framing
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        let report = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(Array(data.prefix(50_000))))
        #expect(report.retries == 0)
        // The probe's connection is not used again: the excess arrived with its body (so it is
        // not parked), or after it (so the range's "answer" is the excess and the range goes out
        // again on a new connection).
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.first?.header("Range") == "bytes=0-0" && gets.last?.header("Range") == "bytes=0-49999")
        #expect(gets.count == 2 || gets.count == 3)
        #expect(gets.last?.connection != gets.first?.connection)
    }

    @Test func aReusedConnectionThatAnswersGarbageIsReplaced() throws {
        // The probe's connection is kept for the small file's one range, but answers it with
        // bytes that are not HTTP (what a server's excess from the last body looks like).
        var file = TestFile(Array(data.prefix(50_000)))
        file.allowsHead = false
        let served = file
        let server = try TestServer { request in
            request.connection == 0 && request.method == "GET" && request.header("Range") != "bytes=0-0"
                ? .raw([UInt8](repeating: 0xEE, count: 100)) : .file(served)
        }
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        let report = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(Array(data.prefix(50_000))))
        #expect(report.retries == 0)
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.map(\.connection) == [0, 0, 1])
        #expect(gets.map { $0.header("Range") } == ["bytes=0-0", "bytes=0-49999", "bytes=0-49999"])
    }

    @Test func aRangeTheFileNoLongerHasMeansItChanged() throws {
        // After the probe the file shrinks to half: range requests beyond it answer 416 with the
        // new length. fastget starts over and fetches the new, shorter file.
        let shrunk = Locked(false)
        let short = Array(data.prefix(data.count / 2))
        let server = try TestServer { request in
            if request.method == "GET" { shrunk.withLock { $0 = true } }
            return .file(TestFile(shrunk.withLock { $0 } ? short : data))
        }
        var notices: [String] = []
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 64 * 1024
        options.output = directory.file("out.bin")
        let report = try Download(url: server.url(), options: options).run(notice: { notices.append($0) })
        #expect(report.bytes == Int64(short.count))
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(short))
        #expect(notices.first?.hasPrefix("the file changed on the server (it is \(short.count) bytes now, not \(data.count))") == true, "\(notices)")
    }

    @Test func aRangeRefusedWithoutANewLengthIsAProtocolError() throws {
        let file = TestFile(data)
        let server = try TestServer { request in
            request.method == "GET" ? .status(416, body: "no") : .file(file)
        }
        let (result, directory, output) = try download(server.url(), segments: 2)
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.exitCode == 76 && error.httpStatus == 416)
        #expect(error.message.hasPrefix("server answered 416 "), "\(error.message)")
        #expect(FileManager.default.fileExists(atPath: output + ".fastget"))
    }

    @Test(arguments: [(401, Int32(77)), (403, 77), (404, 66), (500, 69)])
    func anErrorStatusMidDownloadStopsWithItsCodeAndTheRerunResumes(status: Int, exit: Int32) throws {
        // The probe and the first range succeed; later range requests are refused until the
        // server is mended.
        let file = TestFile(data)
        let state = Locked((failing: true, served: 0))
        let server = try TestServer { request in
            guard request.method == "GET" else { return .file(file) }
            let refuse = state.withLock { state -> Bool in
                state.served += 1
                return state.failing && state.served > 1
            }
            return refuse ? .status(status, body: "no") : .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 64 * 1024
        options.retries = 1
        options.stealing = false
        options.hedging = false
        options.output = directory.file("out.bin")
        #expect {
            try Download(url: server.url(), options: options).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.exitCode == exit && error.httpStatus == status && !error.message.contains("\n")
                && error.hint?.hasPrefix("run the same command again to resume") == true
        }
        // 5xx is retried (retries = 1), 4xx is not.
        #expect(server.requests.filter { $0.method == "GET" }.count == (status >= 500 ? 3 : 2))
        #expect(FileManager.default.fileExists(atPath: directory.file("out.bin.fastget")))

        state.withLock { $0.failing = false }
        server.clearRecords()
        _ = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(server.requests.filter { $0.method == "GET" }.allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
    }

    @Test func fallsBackToOneStreamWhenRangesStopWorkingMidDownload() throws {
        let file = TestFile(data)
        let server = try TestServer { request in
            // An honest HEAD, then 200s with the whole body to the range requests.
            var answer = file
            if request.method == "GET" { answer.honorsRange = false }
            return .file(answer)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 2
        options.minimumSegmentSize = 64 * 1024
        options.output = directory.file("out.bin")
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(report.segments == 1)
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(
            notices.withLock { $0 }.contains {
                $0.hasPrefix("server ignored the byte range") && $0.hasSuffix("downloading in one stream from the start")
            })
        // After the second probe, one plain GET; no byte of the 200s to range requests was used.
        // (A range request of the first pass may still be recorded late: the server reads each
        // connection on its own thread, so only the order on one client thread is certain.)
        let requests = server.requests
        let plain = requests.indices.filter { requests[$0].method == "GET" && requests[$0].header("Range") == nil }
        let heads = requests.indices.filter { requests[$0].method == "HEAD" }
        #expect(plain.count == 1 && heads.count == 2 && plain[0] > heads[1], "\(requests.map { "\($0.method) \($0.header("Range") ?? "-")" })")
    }

    @Test func followsRedirectChainsAndFetchesRangesFromTheFinalURL() throws {
        let server = try TestServer { request in
            switch request.target {
            case "/start": .redirect(status: 301, location: "http://127.0.0.1:\(request.header("Host")!.split(separator: ":")[1])/a/one")
            case "/a/one": .redirect(status: 302, location: "two")
            case "/a/two": .redirect(status: 307, location: "../b/final.bin")
            case "/b/final.bin": .file(TestFile(data))
            default: .status(404)
            }
        }
        let (result, directory, output) = try download(server.url("/start"), segments: 2)
        defer { directory.remove() }
        let report = try result.get()
        #expect(report.resource.url.target == "/b/final.bin")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.filter { $0.header("Range") != nil }.allSatisfy { $0.target == "/b/final.bin" })
    }

    @Test func detectsRedirectLoops() throws {
        let server = try TestServer { request in
            .redirect(status: 302, location: request.target == "/a" ? "/b" : "/a")
        }
        let (result, directory, _) = try download(server.url("/a"))
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.message.contains("redirect loop") && error.exitCode == 76)
    }

    @Test func stopsAfterTenRedirects() throws {
        let server = try TestServer { request in
            let hop = Int(request.target.dropFirst()) ?? 0
            return hop == 11 ? .file(TestFile(data)) : .redirect(status: 308, location: "/\(hop + 1)")
        }
        let (tooMany, directory, _) = try download(server.url("/0"))
        defer { directory.remove() }
        guard case .failure(let error) = tooMany else { Issue.record("expected a failure"); return }
        #expect(error.message.contains("more than 10 redirects"))
        let (tenHops, other, _) = try download(server.url("/1"))
        defer { other.remove() }
        #expect(throws: Never.self) { try tenHops.get() }
    }

    @Test func sendsCredentialsOnlyToTheirOwnHost() throws {
        let server = try TestServer { request in
            // 127.0.0.1 → localhost is another host for credentials, though the same server.
            request.header("Host")!.hasPrefix("127.0.0.1")
                ? .redirect(status: 302, location: "http://localhost:\(request.header("Host")!.split(separator: ":")[1])/f")
                : .file(TestFile(Array(data.prefix(10))))
        }
        let url = "http://user:secret@127.0.0.1:\(server.port)/f"
        let (result, directory, _) = try download(url)
        defer { directory.remove() }
        _ = try result.get()
        let requests = server.requests
        #expect(requests.first?.header("Authorization") == "Basic dXNlcjpzZWNyZXQ=")
        #expect(requests.dropFirst().allSatisfy { $0.header("Authorization") == nil })
    }

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

    @Test func refusesToReplaceAnExistingFile() throws {
        let server = try TestServer(file: TestFile(Array(data.prefix(10))))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory.file("out.bin")))
        var options = DownloadOptions()
        options.output = directory.file("out.bin")
        #expect(throws: FastgetError.self) { try Download(url: server.url(), options: options).run() }
        #expect(try String(contentsOfFile: directory.file("out.bin"), encoding: .utf8) == "keep me")
        options.overwrite = true
        _ = try Download(url: server.url(), options: options).run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.bin"))) == Data(data.prefix(10)))
    }

    @Test func cancelStopsTheTransferAndKeepsThePartFile() throws {
        let server = try TestServer { request in
            request.method == "HEAD" ? .file(TestFile(data)) : .hang
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("out.bin")
        let download = try Download(url: server.url(), options: options)
        let result = Locked<String>("")
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            started.signal()
            do throws(FastgetError) { _ = try download.run() } catch { result.withLock { $0 = error.code.rawValue } }
        }
        thread.start()
        started.wait()
        // Wait (bounded) until the workers' requests have arrived, then cancel.
        let deadline = Date().addingTimeInterval(10)
        while server.requests.filter({ $0.method == "GET" }).isEmpty && Date() < deadline { usleep(1000) }
        download.cancel()
        let finished = Date().addingTimeInterval(10)
        while result.withLock({ $0.isEmpty }) && Date() < finished { usleep(1000) }
        #expect(result.withLock { $0 } == "cancelled")
        #expect(FileManager.default.fileExists(atPath: directory.file("out.bin.part")))
    }
}
