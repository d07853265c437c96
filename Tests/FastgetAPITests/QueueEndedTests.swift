import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A queue made with `keepsEnded: false` lets go of a download once it ended, and keeps only
/// its name's claim.
@Suite struct QueueEndedTests {
    static let files = (0..<3).map { testBytes(count: 8 * 1024, seed: UInt64(300 + $0)) }

    func server() throws -> TestServer {
        try TestServer { request in
            // /fN, with any query (one URL each for one file).
            let path = request.target.split(separator: "?", maxSplits: 1).first ?? ""
            guard let index = Int(path.dropFirst(2)), path.hasPrefix("/f"), Self.files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(Self.files[index]))
        }
    }

    /// Every ended download is released (no reference kept by the queue), more of them than
    /// a sweep takes and the rest once the queue is idle; `downloads` lists none of them.
    @Test func endedDownloadsAreLetGo() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 4, options: testOptions(directory, segments: 1), keepsEnded: false)
        final class Weak: @unchecked Sendable { weak var download: Download? }
        var released: [Weak] = []
        // 150 URLs of three files, each under its own name: more than two sweeps' worth, and
        // all of them in the queue at once (a quarter of them make a sweep then).
        for index in 0..<150 {
            let weak = Weak()
            weak.download = try queue.add(server.url("/f\(index % 3)?\(index)"), destination: directory.file("n\(index)"))
            released.append(weak)
        }
        #expect(queue.waitUntilIdle(timeout: 60))
        #expect(queue.downloads.isEmpty)
        // The thread that ran the last ones may let go of them an instant after the queue went idle.
        let deadline = Date().addingTimeInterval(10)
        while !released.allSatisfy({ $0.download == nil }) && Date() < deadline { usleep(1000) }
        #expect(released.allSatisfy { $0.download == nil }, "\(released.filter { $0.download != nil }.count) still held")
        for index in 0..<150 { #expect(SHA256.hex(ofFile: directory.file("n\(index)")) == SHA256.hex(Self.files[index % 3])) }
    }

    /// A name an ended download saved to stays its URL's: another URL there is refused, the
    /// same URL is a new download (which finds its file complete). `remove` frees it.
    @Test func anEndedDownloadsNameStaysClaimed() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1), keepsEnded: false)
        let first = try queue.add(server.url("/f1"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(first.state == .completed && queue.downloads.isEmpty)
        let refused = #expect(throws: FastgetError.self) { try queue.add(server.url("/f2"), destination: first.destination) }
        #expect(refused?.code == .cannotCreateOutput)
        #expect(refused?.message.contains("already the destination of \(server.url("/f1"))") == true, "\(refused?.message ?? "")")
        let again = try queue.add(server.url("/f1"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(again !== first && again.state == .completed)
        #expect(server.requests.allSatisfy { $0.target == "/f1" }, "\(server.requests.map(\.target))")
        // Removed, the ended download's name is free again.
        queue.remove(again)
        let other = try queue.add(server.url("/f2"), destination: first.destination)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(other.state == .completed || other.state == .failed)
    }

    /// `remove` of an older download of a URL, ended and replaced by a newer one, leaves the
    /// newer one's name claimed (as a queue that keeps ended downloads does): another URL is
    /// still refused there, even when it would replace an existing file.
    @Test(arguments: [true, false])
    func removingAStaleDownloadKeepsTheNewerOnesName(keepsEnded: Bool) throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory, segments: 1)
        options.replacesExistingFile = true // as --overwrite
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 1, options: options, keepsEnded: keepsEnded)
        let first = try queue.add(server.url("/f1"))
        #expect(queue.waitUntilIdle(timeout: 30))
        let again = try queue.add(server.url("/f1"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(first.state == .completed && again.state == .completed && again !== first)
        queue.remove(first)
        let refused = #expect(throws: FastgetError.self) { try queue.add(server.url("/f2"), destination: again.destination) }
        #expect(refused?.code == .cannotCreateOutput)
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(SHA256.hex(ofFile: again.destination) == SHA256.hex(Self.files[1]))
    }
}
