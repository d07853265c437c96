@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// Runs `download` on its own thread; `stop` is called once `ready` says so (bounded wait).
private func runAndStop(_ download: Download, stop: (Download) -> Void, when ready: () -> Bool) -> FastgetError? {
    let outcome = Locked<FastgetError?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Thread {
        do throws(FastgetError) { _ = try download.run() } catch { outcome.withLock { $0 = error } }
        finished.signal()
    }.start()
    let deadline = Date().addingTimeInterval(20)
    while !ready() && Date() < deadline { usleep(2000) }
    stop(download)
    #expect(finished.wait(timeout: .now() + 20) == .success)
    return outcome.withLock { $0 }
}

private func options(_ output: String, segments: Int = 4) -> DownloadOptions {
    var options = DownloadOptions()
    options.output = output
    options.segments = segments
    options.minimumSegmentSize = 64 * 1024
    options.checkpointPeriod = .seconds(0.1)
    options.ioTimeout = .seconds(10)
    options.stealsWork = false
    options.hedgesTails = false
    return options
}

/// A file whose bytes and ETag can be swapped while the server runs.
private final class ChangingFile: Sendable {
    let current: Locked<TestFile>
    init(_ file: TestFile) { current = Locked(file) }
    func swap(_ bytes: [UInt8], etag: String) {
        current.withLock {
            $0.content = .memory(bytes)
            $0.etag = etag
        }
    }
    var file: TestFile { current.withLock { $0 } }
}

@Suite struct ResumeTests {
    let data = testBytes(count: 2 << 20, seed: 21)
    static let rate: @Sendable (Int) -> Double? = { _ in 1_048_576.0 } // 1 MiB/s per connection

    @Test func pausedDownloadResumesFromItsWatermarksWithIfRange() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: ResumeTests.rate))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let first = try Download(url: server.url(), options: options(output))
        let error = runAndStop(first, stop: { $0.pause() }) {
            (Checkpointer.load(output + ".fastget").flatMap { try? $0.get() }?.bytesWritten ?? 0) > 200_000
        }
        #expect(error?.code == .cancelled && error?.code == .cancelled)
        #expect(error?.message == "download paused")
        #expect(error?.remedy == .resume(journal: "\(output).fastget"))
        #expect(error?.hint == "run the download again to resume (journal: \(output).fastget)")
        let journal = try #require(try Checkpointer.load(output + ".fastget")?.get())
        #expect(
            journal.validator == Validator(etag: "\"fastget-test-1\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")
                && journal.length == Int64(data.count))
        #expect(journal.bytesWritten > 0 && journal.bytesWritten < Int64(data.count))
        // The journal's claims are true: those bytes are in the .part file.
        let part = try Data(contentsOf: URL(fileURLWithPath: output + ".part"))
        for segment in journal.segments {
            #expect(part[Int(segment.start)..<Int(segment.written)] == Data(data[Int(segment.start)..<Int(segment.written)]))
        }

        server.clearRecords()
        let report = try Download(url: server.url(), options: options(output)).run()
        #expect(report.resumedBytes == journal.bytesWritten)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(!FileManager.default.fileExists(atPath: output + ".fastget"))
        #expect(!FileManager.default.fileExists(atPath: output + ".part"))
        // The rerun asked only for what was missing, each range guarded by If-Range.
        let gets = server.requests.filter { $0.method == "GET" }
        let expected = Set(journal.segments.filter { $0.written < $0.end }.map { "bytes=\($0.written)-\($0.end - 1)" })
        #expect(Set(gets.compactMap { $0.header("Range") }) == expected)
        #expect(gets.allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
    }

    @Test func restartsWhenTheValidatorChangedBetweenRuns() throws {
        let file = ChangingFile(TestFile(data))
        let server = try TestServer(TestServer.Configuration(rate: ResumeTests.rate)) { _ in .file(file.file) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        _ = runAndStop(try Download(url: server.url(), options: options(output)), stop: { $0.cancel() }) {
            FileManager.default.fileExists(atPath: output + ".fastget")
        }
        let newer = testBytes(count: data.count, seed: 22)
        file.swap(newer, etag: "\"fastget-test-2\"")
        let notices = Locked<[String]>([])
        _ = try Download(url: server.url(), options: options(output)).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(newer))
        #expect(notices.withLock { $0 }.contains { $0.contains("the file changed on the server") && $0.hasSuffix("starting over") })
    }

    @Test func restartsWhenIfRangeSaysTheFileChangedMidDownload() throws {
        let file = ChangingFile(TestFile(data))
        let newer = testBytes(count: data.count, seed: 23)
        let server = try TestServer { request in
            // The probe (the first range's GET) sees version 1; every range request after it
            // meets version 2.
            let answer = file.file
            if answer.etag == "\"fastget-test-1\"" {
                file.swap(newer, etag: "\"fastget-test-2\"")
            }
            return .file(answer)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options(output)).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(newer))
        #expect(report.resumedBytes == 0)
        #expect(notices.withLock { $0 }.contains { $0.contains("If-Range") && $0.hasSuffix("starting over") })
    }

    @Test func ignoresACorruptJournalAndStartsOver() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(repeating: 0x55, count: data.count).write(to: URL(fileURLWithPath: output + ".part"))
        try Data("FASTGETJ garbage".utf8).write(to: URL(fileURLWithPath: output + ".fastget"))
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options(output)).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(report.resumedBytes == 0)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(notices.withLock { $0 } == ["ignoring \(output).fastget (journal is truncated); starting over"])
    }

    @Test func recognisesADownloadStoppedBetweenRenameAndJournalRemoval() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data).write(to: URL(fileURLWithPath: output))
        let stale = Journal(
            url: server.url(), finalURL: server.url(), length: Int64(data.count), validator: .etag("\"fastget-test-1\""),
            segments: [.init(start: 0, end: Int64(data.count), written: Int64(data.count))])
        try Data(stale.encoded()).write(to: URL(fileURLWithPath: output + ".fastget"))
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options(output)).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(report.workers == 0)
        #expect(notices.withLock { $0 } == ["\(output) is already complete"])
        #expect(!FileManager.default.fileExists(atPath: output + ".fastget"))
        #expect(server.requests.map(\.method) == ["HEAD"])
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    /// A journal that claims less than every byte never reached its rename (a `.part` removed
    /// since, a digest that failed): the file at NAME, of the same length, is someone else's.
    @Test func aJournalThatClaimsLessDoesNotVouchForTheFileAtTheName() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let other = testBytes(count: data.count, seed: 2503)
        try Data(other).write(to: URL(fileURLWithPath: output))
        let stale = Journal(
            url: server.url(), finalURL: server.url(), length: Int64(data.count), validator: .etag("\"fastget-test-1\""),
            segments: [.init(start: 0, end: Int64(data.count), written: 1000)])
        try Data(stale.encoded()).write(to: URL(fileURLWithPath: output + ".fastget"))
        let result = try runProcess(try fastgetExecutable(), ["-o", "f.bin", server.url()], in: directory.path, timeout: 60)
        #expect(result.status == 73 && result.stderr.contains("f.bin already exists"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(other), "left as it was")
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }

    @Test func continuesAFileLeftWithoutAJournal() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data.prefix(300_000)).write(to: URL(fileURLWithPath: output))
        var settings = options(output, segments: 2)
        settings.continuePartial = true
        let report = try Download(url: server.url(), options: settings).run()
        #expect(report.resumedBytes == 300_000)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        // The two segments planned over the missing part were asked for (and maybe a stolen
        // tail); nothing below byte 300000 was fetched again.
        let ranges = server.requests.filter { $0.method == "GET" }.compactMap { $0.header("Range") }
        let half = 300_000 + (data.count - 300_000) / 2
        #expect(Set(ranges).isSuperset(of: ["bytes=300000-\(half - 1)", "bytes=\(half)-\(data.count - 1)"]))
        #expect(ranges.allSatisfy { (Int($0.dropFirst(6).split(separator: "-")[0]) ?? 0) >= 300_000 })
    }

    @Test func continueOnACompleteFileFetchesNothing() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data).write(to: URL(fileURLWithPath: output))
        var settings = options(output)
        settings.continuePartial = true
        let report = try Download(url: server.url(), options: settings).run()
        #expect(report.workers == 0 && report.bytes == Int64(data.count))
        #expect(server.requests.map(\.method) == ["HEAD"])
    }

    @Test func continueOnALargerFileDownloadsAgain() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data + [1, 2, 3]).write(to: URL(fileURLWithPath: output))
        var settings = options(output)
        settings.continuePartial = true
        let report = try Download(url: server.url(), options: settings).run()
        #expect(report.resumedBytes == 0)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    #if FASTGET_FAULTS
    @Test func diskFullStopsWithExit74AndTheRerunCompletes() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 4_194_304.0 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("full.bin")
        FaultInjection.failWrites(to: output + ".part", after: 1_000_000)
        defer { FaultInjection.disarm() }
        #expect {
            try Download(url: server.url(), options: options(output)).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.code == .localIO && error.message.contains("no space left")
                && error.remedy == .resume(journal: "\(output).fastget")
        }
        let journal = try #require(try Checkpointer.load(output + ".fastget")?.get())
        #expect(journal.bytesWritten <= 1_000_000)
        let part = try Data(contentsOf: URL(fileURLWithPath: output + ".part"))
        for segment in journal.segments {
            #expect(part[Int(segment.start)..<Int(segment.written)] == Data(data[Int(segment.start)..<Int(segment.written)]))
        }
        FaultInjection.disarm()
        let report = try Download(url: server.url(), options: options(output)).run()
        #expect(report.resumedBytes == journal.bytesWritten)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }
    #endif
}
