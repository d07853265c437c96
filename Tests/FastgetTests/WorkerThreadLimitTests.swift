import Foundation
import Testing

@testable import Fastget
import FastgetTestSupport

/// The worker threads of a session's downloads stay within its limit, together: a download
/// asking for more connections than there are threads free runs with fewer, takes more as
/// threads free up, and finishes; a download with none running always gets its first.
@Suite struct WorkerThreadLimitTests {
    let data = testBytes(count: 1 << 20, seed: 97)

    /// Two downloads of four connections each, at once, in `session`, from a paced server (so
    /// that every connection each asks for would be open together).
    @discardableResult
    func twoDownloads(in session: Session) throws -> [DownloadReport] {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let downloads = try ["a.bin", "b.bin"].map { name in
            var options = DownloadOptions()
            (options.segments, options.minimumSegmentSize) = (4, 64 * 1024)
            (options.hedgesTails, options.stealsWork) = (false, false)
            return try Download(url: server.url("/f.bin"), destination: directory.file(name), options: options, session: session)
        }
        let failures = Locked<[String]>([])
        let reports = Locked<[DownloadReport]>([])
        let threads = try downloads.map { download in
            try PosixThread {
                do throws(FastgetError) {
                    let report = try download.run()
                    reports.withLock { $0.append(report) }
                } catch {
                    failures.withLock { $0.append(error.message) }
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(failures.withLock { $0 }.isEmpty)
        for name in ["a.bin", "b.bin"] { #expect(SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(data)) }
        #expect(session.workerThreads.inUse == 0)
        return reports.withLock { $0 }
    }

    /// Three threads: the first download takes them all, the second its first one beyond them:
    /// never more than four at once (the limit and one per other download).
    @Test func twoDownloadsOfFourConnectionsShareThreeThreads() throws {
        let session = try Session(maximumWorkerThreads: 3)
        let reports = try twoDownloads(in: session)
        #expect(session.workerThreads.most <= 4 && session.workerThreads.most >= 2, "\(session.workerThreads.most)")
        // The one that started short took more threads once the other's were given back
        // (alone, one connection takes a second for the file; the other is done in half that).
        #expect(reports.count == 2 && reports.allSatisfy { $0.workers >= 2 }, "\(reports.map(\.workers))")
    }

    /// With room for all, the same downloads run all eight (the test above is not passing by luck).
    @Test func withRoomForAllTheyRunEveryConnection() throws {
        let session = try Session(maximumWorkerThreads: 64)
        try twoDownloads(in: session)
        #expect(session.workerThreads.most == 8, "\(session.workerThreads.most)")
    }

    @Test func theAllowanceGrantsWithinItsLimitAndAFirstThreadAlways() {
        let allowance = ThreadAllowance(limit: 2)
        #expect(allowance.take(always: false) && allowance.take(always: false))
        #expect(!allowance.take(always: false))
        #expect(allowance.take(always: true)) // a download with none running
        #expect(allowance.inUse == 3 && allowance.most == 3)
        allowance.give()
        #expect(!allowance.take(always: false)) // still two taken: at the limit
        allowance.give()
        #expect(allowance.take(always: false) && allowance.inUse == 2)
        #expect(throws: FastgetError.self) { try Session(maximumWorkerThreads: 0) }
        #expect(throws: FastgetError.self) { try Session(maximumWorkerThreads: 4097) }
    }
}
