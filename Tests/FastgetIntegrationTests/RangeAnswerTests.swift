@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

private let data = testBytes(count: (1 << 20) + 3)

/// Answers to range requests that cannot be used as they are: a wrong Content-Range, a body that
/// runs long, garbage on a kept connection, 416, error statuses and 200s in the middle of a download.
@Suite struct RangeAnswerTests {
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
        #expect(error.code == .protocolViolation)
        #expect(error.message.contains("Content-Range"))
        #expect(!FileManager.default.fileExists(atPath: output))
        // The .part file holds no byte of the rejected responses (it is still all zeros).
        let part = try Data(contentsOf: URL(fileURLWithPath: output + ".part"))
        #expect(part.count == data.count && part.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [TestFile.Framing.contentLength, .untilClose])
    func usesOnlyTheAskedBytesOfABodyThatRunsLong(framing: TestFile.Framing) throws {
        // Every GET body is followed by garbage. The probe's `bytes=0-` GET carries the small
        // file: its worker uses exactly the file's bytes of it, never the garbage after.
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
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.map { $0.header("Range") } == ["bytes=0-"])
    }

    @Test func aReusedConnectionThatAnswersGarbageIsReplaced() throws {
        // The probe's GET meets 501 and HEAD 405, so the HEAD probe asks for byte 0 on the same
        // connection, which is kept for the small file's one range, but answers it with bytes
        // that are not HTTP (what a server's excess from the last body looks like).
        var file = TestFile(Array(data.prefix(50_000)))
        file.allowsHead = false
        let served = file
        let server = try TestServer { request in
            if request.header("Range") == "bytes=0-" { return .status(501) }
            return request.connection == 0 && request.method == "GET" && request.header("Range") != "bytes=0-0"
                ? .raw([UInt8](repeating: 0xEE, count: 100)) : .file(served)
        }
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        let report = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(Array(data.prefix(50_000))))
        #expect(report.retries == 0)
        let gets = server.requests.filter { $0.method == "GET" }
        #expect(gets.map(\.connection) == [0, 0, 0, 1])
        #expect(gets.map { $0.header("Range") } == ["bytes=0-", "bytes=0-0", "bytes=0-49999", "bytes=0-49999"])
    }

    @Test func aRangeTheFileNoLongerHasMeansItChanged() throws {
        // After the probe the file shrinks to half: range requests beyond it answer 416 with the
        // new length. fastget starts over and fetches the new, shorter file.
        let shrunk = Locked(false)
        let short = Array(data.prefix(data.count / 2))
        let gets = Atomic<Int>(0)
        let server = try TestServer { request in
            // The probe's GET sees the whole file; the file shrinks right after it.
            if request.method == "GET" && gets.add(1, ordering: .relaxed).newValue > 1 { shrunk.withLock { $0 = true } }
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
        #expect(error.code == .protocolViolation && error.httpStatus == 416)
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
        options.stealsWork = false
        options.hedgesTails = false
        options.output = directory.file("out.bin")
        #expect {
            try Download(url: server.url(), options: options).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.code.commandExitStatus == exit && error.httpStatus == status && !error.message.contains("\n")
                && error.hint?.hasPrefix("run the download again to resume") == true
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
            // An honest answer to the probe's GET, then 200s with the whole body to the range
            // requests.
            var answer = file
            if request.method == "GET" && request.header("Range") != "bytes=0-" { answer.honorsRange = false }
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
        #expect(report.workers == 1)
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
        #expect(
            notices.withLock { $0 }.contains {
                $0.hasPrefix("server ignored the byte range") && $0.hasSuffix("downloading in one stream from the start")
            })
        // After the second probe (a HEAD: a restart does not read the file with its probe), one
        // plain GET; no byte of the 200s to range requests was used.
        // (A range request of the first pass may still be recorded late: the server reads each
        // connection on its own thread, so only the order on one client thread is certain.)
        let requests = server.requests
        let plain = requests.indices.filter { requests[$0].method == "GET" && requests[$0].header("Range") == nil }
        let heads = requests.indices.filter { requests[$0].method == "HEAD" }
        #expect(plain.count == 1 && heads.count == 1 && plain[0] > heads[0], "\(requests.map { "\($0.method) \($0.header("Range") ?? "-")" })")
    }
}
