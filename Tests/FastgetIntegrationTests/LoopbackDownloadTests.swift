@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

private let data = testBytes(count: (1 << 20) + 3)

/// Whole downloads from the loopback test server: the requests a plan sends, one stream when
/// ranges are not offered, bodies of unknown length, a dropped segment resumed, and the output file.
@Suite struct LoopbackDownloadTests {
    @Test func fetchesEachSegmentWithExactlyTheRangeItNeeds() throws {
        let server = try TestServer(file: TestFile(data))
        let (result, directory, output) = try download(server.url(), segments: 4)
        defer { directory.remove() }
        let report = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(report.bytes == Int64(data.count) && report.workers == 4 && report.retries == 0)
        #expect(!FileManager.default.fileExists(atPath: output + ".part"))

        let requests = server.requests
        // No HEAD: the probe is the first range's GET, from byte 0 to the end (its worker stops
        // at 262145).
        #expect(requests.allSatisfy { $0.method == "GET" })
        #expect(requests.first?.header("Range") == "bytes=0-")
        let ranges = Set(requests.compactMap { $0.header("Range") })
        // 1 MiB + 3 bytes over 4: 262145, 262145, 262145, 262144 bytes.
        #expect(ranges == ["bytes=0-", "bytes=262145-524289", "bytes=524290-786434", "bytes=786435-1048578"])
        #expect(requests.count == 4)
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

    @Test func theProbesGetCarriesASmallFile() throws {
        let server = try TestServer(file: TestFile(Array(data.prefix(1000))))
        let (result, directory, output) = try download(server.url(), segments: 1)
        defer { directory.remove() }
        _ = try result.get()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data.prefix(1000)))
        #expect(server.requests.map(\.method) == ["GET"])
        #expect(server.requests.map { $0.header("Range") } == ["bytes=0-"])
        #expect(server.connectionCount == 1)
    }

    @Test func fallsBackToOneStreamWhenRangesAreIgnored() throws {
        var file = TestFile(data)
        file.honorsRange = false
        file.advertisesRanges = false
        let server = try TestServer(file: file)
        let (result, directory, output) = try download(server.url(), segments: 8)
        defer { directory.remove() }
        #expect(try result.get().workers == 1)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let gets = server.requests.filter { $0.method == "GET" }
        // The probe's bytes=0- is answered with 200 and the whole file: that answer is the stream.
        #expect(gets.map { $0.header("Range") } == ["bytes=0-"])
        #expect(server.requests.count == 1)
    }

    @Test func aWholeAnswerToTheProbeFromAServerWithRangesIsStillSegmented() throws {
        // The probe's bytes=0- is answered 200 with the whole file (a cache filling on a miss),
        // but the server says it takes ranges: the answer carries the first range, the others
        // are asked for, and the download keeps a journal.
        let file = TestFile(data)
        let server = try TestServer { request in
            var answer = file
            if request.header("Range") == "bytes=0-" { answer.honorsRange = false }
            return .file(answer)
        }
        let (result, directory, output) = try download(server.url(), segments: 4)
        defer { directory.remove() }
        #expect(try result.get().workers == 4)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let ranges = Set(server.requests.compactMap { $0.header("Range") })
        #expect(ranges == ["bytes=0-", "bytes=262145-524289", "bytes=524290-786434", "bytes=786435-1048578"])
    }

    @Test func probesWithARangedGetWhenHeadIsRefused() throws {
        // The probe's GET meets 501, so the HEAD probe runs, meets 405, and asks for byte 0.
        var file = TestFile(data)
        file.allowsHead = false
        let served = file
        let server = try TestServer { request in request.header("Range") == "bytes=0-" ? .status(501) : .file(served) }
        let (result, directory, output) = try download(server.url(), segments: 2)
        defer { directory.remove() }
        #expect(try result.get().workers == 2)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let requests = server.requests
        #expect(requests.prefix(3).map(\.method) == ["GET", "HEAD", "GET"])
        #expect(requests[2].header("Range") == "bytes=0-0")
        #expect(Set(requests.dropFirst(3).compactMap { $0.header("Range") }) == ["bytes=0-524289", "bytes=524290-1048578"])
        #expect(requests.count == 5)
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
        #expect(report.bytes == Int64(data.count) && report.workers == 1)
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
        #expect(try result.get().workers == 3)
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
        #expect(ranges == ["bytes=0-", "bytes=100000-1048578"])
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
        options.replacesExistingFile = true
        _ = try Download(url: server.url(), options: options).run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.bin"))) == Data(data.prefix(10)))
    }

    @Test func cancelStopsTheTransferAndKeepsThePartFile() throws {
        let server = try TestServer { request in
            request.header("Range") == "bytes=0-" ? probeHeadOnly(length: data.count) : .hang
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
        // Wait (bounded) until the workers' requests (after the probe's) have arrived, then cancel.
        let deadline = Date().addingTimeInterval(10)
        while server.requests.filter({ $0.method == "GET" }).count < 2 && Date() < deadline { usleep(1000) }
        download.cancel()
        let finished = Date().addingTimeInterval(10)
        while result.withLock({ $0.isEmpty }) && Date() < finished { usleep(1000) }
        #expect(result.withLock { $0 } == "cancelled")
        #expect(FileManager.default.fileExists(atPath: directory.file("out.bin.part")))
    }
}
