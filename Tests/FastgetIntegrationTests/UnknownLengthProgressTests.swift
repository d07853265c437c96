import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A body of unknown length (chunked, or until the close) still shows its bytes as they come:
/// the progress of a stream is its watermark, not the bytes within its (empty) planned range.
@Suite struct UnknownLengthProgressTests {
    @Test(arguments: [TestFile.Framing.chunked(chunkSize: 65_536), .untilClose])
    func progressCountsTheBytesOfAStreamOfUnknownLength(framing: TestFile.Framing) throws {
        let data = testBytes(count: 4 << 20, seed: 97)
        var file = TestFile(data)
        (file.framing, file.honorsRange, file.advertisesRanges) = (framing, false, false)
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in 8 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("u.bin")
        options.progressPeriod = .seconds(0.05)
        let download = try Download(url: server.url(), options: options)
        let seen = Locked<[Int64]>([])
        download.onEvent { event in
            if case .progress(let progress) = event, progress.totalBytes == nil { seen.withLock { $0.append(progress.completedBytes) } }
        }
        let report = try download.run()
        #expect(report.bytes == Int64(data.count))
        let counts = seen.withLock { $0 }
        #expect(counts.contains { $0 > 0 && $0 < Int64(data.count) }, "bytes shown while they came: \(counts)")
        #expect(counts == counts.sorted(), "never backwards")
    }
}
