@testable import Fastget
import FastgetTestSupport
import Foundation
import Glibc
import Testing

/// A `fastget` process running in the background, with a bounded wait for its end.
private final class Background {
    let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    private let errors = Pipe()

    init(_ arguments: [String], in directory: String) throws {
        process.executableURL = URL(fileURLWithPath: try fastgetExecutable())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    /// The exit status and standard error, or nil when it did not end within `timeout` (then it is killed).
    func finish(within timeout: Double = 60) -> (status: Int32, stderr: String)? {
        guard exited.wait(timeout: .now() + timeout) == .success else {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            return nil
        }
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}

/// Waits (bounded) until `condition` holds; returns whether it did.
private func eventually(within seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(2000)
    }
    return true
}

/// Library options for a download into `output` over four segments.
private func fourSegments(_ output: String, checkpointInterval: Double) -> DownloadOptions {
    var options = DownloadOptions()
    options.output = output
    options.segments = 4
    options.checkpointPeriod = .seconds(checkpointInterval)
    return options
}

private func journal(at path: String) -> Journal? { Checkpointer.load(path).flatMap { try? $0.get() } }

private func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// One owner per download, and the journal from the first moment.
@Suite struct OwnershipTests {
    let data = testBytes(count: 4 << 20, seed: 1301)
    /// 1 MiB/s per connection: a 4 MiB file over 4 connections takes about a second.
    static let slow = TestServer.Configuration(rate: { _ in 1_048_576 })

    @Test func aSecondProcessOnTheSameFileIsRefusedAndTouchesNothing() throws {
        // Slow enough that the first is still running when the second (even a sanitizer
        // build, slow to start) has given up.
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 256 * 1024 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "10", "-o", "same.bin", server.url()]
        let first = try Background(arguments, in: directory.path)
        let part = directory.file("same.bin.part")
        // The first owns the file and has bytes in it that no checkpoint has claimed yet.
        #expect(eventually { server.requests.filter { $0.method == "GET" }.count == 4 })
        let second = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
        #expect(second.status == 73)
        #expect(second.stderr.contains("fastget: error: another download is saving same.bin (it holds same.bin.fastget.lock)"))
        #expect(FileManager.default.fileExists(atPath: part))
        let outcome = try #require(first.finish())
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(data))
        // Nothing is left beside the file: no .part, journal, temporary journal or lock.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["same.bin"])
    }

    @Test func twoDownloadsInOneProcessNeverShareADestination() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let options = fourSegments(directory.file("same.bin"), checkpointInterval: 10)
        let first = try Download(url: server.url(), options: options)
        first.start()
        #expect(eventually { server.requests.filter { $0.method == "GET" }.count == 4 })
        #expect(throws: FastgetError.self) { try Download(url: server.url("/other"), options: options).run() }
        do throws(FastgetError) {
            _ = try Download(url: server.url("/other"), options: options).run()
        } catch {
            #expect(error.code == .cannotCreateOutput && error.code == .cannotCreateOutput)
            #expect(error.message.hasPrefix("another download is saving \(directory.file("same.bin"))"))
        }
        #expect(eventually(within: 60) { first.state.isFinal })
        #expect(first.state == .completed)
        #expect(SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(data))
    }

    /// The lock is taken before the first request: a download to a name the user gave, which
    /// another download holds, is refused without asking its server anything.
    @Test func aRefusedDownloadSendsNoRequest() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let held = try #require(try FileLock.acquire(directory.file("same.bin.fastget.lock")))
        defer { held.release() }
        do throws(FastgetError) {
            _ = try Download(url: server.url("/other"), options: fourSegments(directory.file("same.bin"), checkpointInterval: 10)).run()
            Issue.record("the download was not refused")
        } catch {
            #expect(error.code == .cannotCreateOutput, "\(error)")
        }
        #expect(server.requests.isEmpty, "\(server.requests.map(\.target))")
    }

    @Test func twoLinesOfAListThatMapToOneNameRunOnlyTheFirst() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = directory.file("list.txt")
        try "\(server.url("/32m.bin"))\n\(server.url("/32m.bin?x"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let result = try runProcess(try fastgetExecutable(), ["-i", list, "-j", "2", "-d", directory.path], timeout: 60)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "32m.bin is already the destination of \(server.url("/32m.bin")); not downloading \(server.url("/32m.bin?x")) there"))
        #expect(SHA256.hex(ofFile: directory.file("32m.bin")) == SHA256.hex(data))
        #expect(Set(server.requests.map(\.target)) == ["/32m.bin"])
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["32m.bin", "list.txt"])
    }

    @Test func aFileCreatedAtTheFinalNameMeanwhileIsKept() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let first = try Background(["-q", "-n", "4", "-o", "f.bin", server.url()], in: directory.path)
        #expect(eventually { server.requests.filter { $0.method == "GET" }.count == 4 })
        let mine = Data("the user's own file\n".utf8)
        try mine.write(to: URL(fileURLWithPath: output))
        let outcome = try #require(first.finish())
        #expect(outcome.status == 73)
        #expect(outcome.stderr.contains("fastget: error: f.bin appeared while downloading; the download is kept as f.bin.part"))
        #expect(fileBytes(output) == mine)
        #expect(SHA256.hex(ofFile: output + ".part") == SHA256.hex(data))
        // The last checkpoint claims every byte: replacing it now fetches nothing more.
        server.clearRecords()
        let again = try runProcess(try fastgetExecutable(), ["-q", "--overwrite", "-o", "f.bin", server.url()], in: directory.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.allSatisfy { $0.method == "HEAD" })
    }

    @Test func theJournalExistsAsSoonAsTheTransferStarts() throws {
        // The probe's GET is answered with a head and no body, every other range request with
        // nothing: the download can only wait.
        let length = 4 << 20
        let server = try TestServer { request in
            if request.header("Range") == "bytes=0-" { return probeHeadOnly(length: length) }
            return request.method == "HEAD" ? .file(TestFile(testBytes(count: length, seed: 1302))) : .hang
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        var options = fourSegments(output, checkpointInterval: 30)
        options.ioTimeout = .seconds(30)
        let download = try Download(url: server.url(), options: options)
        download.start()
        #expect(eventually { server.requests.filter { $0.method == "GET" }.count >= 4 })
        let first = try #require(journal(at: output + ".fastget"))
        #expect(first.length == 4 << 20 && first.bytesWritten == 0 && first.segments.count == 4)
        download.cancel()
        #expect(eventually { download.state.isFinal })
    }

    @Test func aKillSoonAfterTheStartLosesLittle() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let arguments = ["-q", "-n", "4", "--checkpoint-interval", "30", "-o", "f.bin", server.url()]
        let first = try Background(arguments, in: directory.path)
        // With a 30 s interval, only the early first checkpoint can claim bytes this soon.
        #expect(eventually(within: 5) { (journal(at: output + ".fastget")?.bytesWritten ?? 0) > 0 })
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.finish()
        let claimed = try #require(journal(at: output + ".fastget")).bytesWritten
        #expect(server.waitUntilIdle())
        server.clearRecords()
        let again = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        let fetched = server.responses.filter { $0.method == "GET" }.reduce(Int64(0)) { $0 + $1.bodyBytes }
        #expect(fetched == Int64(data.count) - claimed)
    }

    /// What `-c` leaves when stopped after moving the user's file (`prefix` bytes) to `.part`,
    /// before growing it: a short `.part` and a journal claiming all of it.
    func leaveMovedPrefix(_ prefix: Int, at output: String, url: String, validator: Validator?) throws {
        try Data(data[0..<prefix]).write(to: URL(fileURLWithPath: output + ".part"))
        let length = Int64(data.count)
        let entries = [
            Journal.Entry(start: 0, end: Int64(prefix), written: Int64(prefix)),
            Journal.Entry(start: Int64(prefix), end: length, written: Int64(prefix)),
        ]
        let journal = Journal(url: url, finalURL: url, length: length, validator: validator, segments: entries)
        try Data(journal.encoded()).write(to: URL(fileURLWithPath: output + ".fastget"))
    }

    @Test func aPartShorterThanTheFileResumesWhenItHoldsTheClaimedBytes() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try leaveMovedPrefix(1_000_000, at: output, url: server.url(), validator: .etag("\"fastget-test-1\""))
        let result = try runProcess(try fastgetExecutable(), ["-q", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.compactMap { $0.header("Range") }.allSatisfy { !$0.hasPrefix("bytes=0-") })
    }

    @Test func continueStoppedAfterMovingTheFileResumesWithoutAValidatorToo() throws {
        // -c accepts bytes no validator vouches for; its journal then holds the user's prefix.
        var file = TestFile(data)
        file.etag = nil
        file.lastModified = nil
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let prefix = 1_500_000
        try leaveMovedPrefix(prefix, at: output, url: server.url(), validator: nil)
        let result = try runProcess(try fastgetExecutable(), ["-q", "-c", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.compactMap { $0.header("Range") } == ["bytes=\(prefix)-\(data.count - 1)"])
    }

    @Test func continueStoppedBeforeMovingTheFileNeverVouchesForAnOlderPart() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data[0..<1_500_000]).write(to: URL(fileURLWithPath: output))
        // A .part from an earlier download that was not resumed: full length, other bytes,
        // fastget's by its mark.
        try Data(count: data.count).write(to: URL(fileURLWithPath: output + ".part"))
        let inode = try #require(FileSystem.entryStatus(output + ".part")).inode
        let mark = SidecarFiles.partMarkValue(inode: inode, url: server.url())
        #expect(try FileDescriptor.openRegular(output + ".part").setAttribute(SidecarFiles.partMark, mark))
        // Stop -c between its journal and the move of the user's file (the second rename).
        let stopped = try FaultRun("fail=rename@2", ["-q", "-c", "-o", "f.bin", server.url()], in: directory.path)
        try stopped.requireInjector()
        #expect(stopped.status == 74, "\(stopped.stderr)")
        let again = try runProcess(try fastgetExecutable(), ["-q", "-c", "-o", "f.bin", server.url()], in: directory.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    @Test func continueOnALargerFileResumedStillReplacesIt() throws {
        let server = try TestServer(file: TestFile(data), OwnershipTests.slow)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(count: data.count + 1000).write(to: URL(fileURLWithPath: output))
        var options = fourSegments(output, checkpointInterval: 0.1)
        options.continuePartial = true
        let first = try Download(url: server.url(), options: options)
        first.start()
        #expect(eventually { (journal(at: output + ".fastget")?.bytesWritten ?? 0) > 100_000 })
        first.pause()
        #expect(eventually { first.state == .paused })
        _ = try Download(url: server.url(), options: options).run()
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
    }

    @Test func aFileThatIsNotALockAtTheLockPathIsNeverTouched() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mine = Data("a download a server once named f.bin.fastget.lock\n".utf8)
        try mine.write(to: URL(fileURLWithPath: directory.file("f.bin.fastget.lock")))
        let result = try runProcess(try fastgetExecutable(), ["-q", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 73)
        #expect(result.stderr.hasPrefix("fastget: error: f.bin.fastget.lock exists and is not a fastget lock; leaving it alone\n"))
        #expect(fileBytes(directory.file("f.bin.fastget.lock")) == mine)
    }

    @Test func continueKeepsTheUsersPrefixAndWritesTheJournalFirst() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        try Data(data[0..<1_500_000]).write(to: URL(fileURLWithPath: output))
        let result = try runProcess(try fastgetExecutable(), ["-c", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("continuing f.bin from byte 1500000"))
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(server.requests.compactMap { $0.header("Range") }.allSatisfy { !$0.hasPrefix("bytes=0-") })
    }
}

/// Probes that meet a busy server, and resumes that need a validator.
@Suite struct ValidatorAndProbeTests {
    let data = testBytes(count: 2 << 20, seed: 1303)

    @Test func aProbeAnswered503WithRetryAfterIsRetried() throws {
        let busy = Locked(true)
        let file = TestFile(data)
        let server = try TestServer { request in
            let first = busy.withLock { value -> Bool in
                defer { value = false }
                return value
            }
            return first ? .status(503, body: "", fields: [(name: "Retry-After", value: "1")]) : .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["-v", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let heads = server.requests.filter { $0.header("Range") == "bytes=0-" } // the probe's GETs
        #expect(heads.count == 2)
        #expect(heads.count == 2 && heads[1].received - heads[0].received >= 0.95)
        #expect(result.stderr.contains("retry 1"))
    }

    @Test func withoutAValidatorAResumeStartsOver() throws {
        var file = TestFile(data)
        file.etag = nil
        file.lastModified = nil
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("f.bin")
        let options = fourSegments(output, checkpointInterval: 0.1)
        let first = try Download(url: server.url(), options: options)
        first.start()
        #expect(eventually { (journal(at: output + ".fastget")?.bytesWritten ?? 0) > 100_000 })
        first.pause()
        #expect(eventually { first.state == .paused })
        server.clearRecords()
        let notices = Locked<[String]>([])
        let report = try Download(url: server.url(), options: options).run(notice: { text in notices.withLock { $0.append(text) } })
        #expect(report.resumedBytes == 0)
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        #expect(
            notices.withLock { $0 } == [
                "not resuming from \(output).fastget: the server gives no ETag or Last-Modified, so a changed file could not be told from this one; starting over"
            ])
        #expect(server.requests.contains { $0.header("Range")?.hasPrefix("bytes=0-") == true })
    }

    @Test func aRangeFromAnotherVersionByLastModifiedIsNeverMixedIn() throws {
        // No ETag, so Last-Modified is the validator. The first segment comes from version A;
        // every other range is answered 206 from version B with its own Last-Modified.
        var a = TestFile(data)
        a.etag = nil
        var b = TestFile(testBytes(count: data.count, seed: 1304))
        b.etag = nil
        b.lastModified = "Sun, 22 Nov 2026 10:00:00 GMT"
        b.honorsIfRange = false
        let (versionA, versionB) = (a, b)
        let server = try TestServer { request in
            if let range = request.header("Range"), !range.hasPrefix("bytes=0-") { return .file(versionB) }
            return .file(versionA)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), ["-n", "4", "-o", "f.bin", server.url()], in: directory.path)
        #expect(result.status == 76, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "the file changed on the server (Last-Modified Sun, 22 Nov 2026 10:00:00 GMT, expected Sat, 21 Nov 2026 10:00:00 GMT)"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin")))
    }
}
