import FastgetTestSupport
import Foundation
import Testing

/// What a file of a list costs in system calls, counted by the fault injector (armed, injecting
/// nothing): a small file that one response carries whole needs each of its paths looked at
/// once per step, its lock as its only removal, and no journal.
@Suite struct ListCostTests {
    static let count = 12
    static let files = (0..<count).map { testBytes(count: 64 * 1024, seed: UInt64(900 + $0)) }

    /// Downloads the list into `out`, 3 at a time, and checks every file.
    static func run(in directory: TemporaryDirectory) throws -> FaultRun {
        let files = ListCostTests.files
        let server = try TestServer { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
        let list = (0..<count).map { server.url("/f\($0)") }.joined(separator: "\n")
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        let run = try FaultRun("seed=1", ["-q", "-i", "urls.txt", "-j", "3", "-n", "1", "-d", "out"], in: directory.path)
        try run.requireInjector()
        #expect(run.status == 0, "\(run.stderr)")
        for index in 0..<count {
            #expect(SHA256.hex(ofFile: directory.file("out/f\(index)")) == SHA256.hex(files[index]))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
        #expect(left.count == count, "\(left.sorted())")
        return run
    }

    /// Per file: the destination, `.part` and journal looked at before the first request and
    /// again under the lock, the lock's own check, the free space, the `.part` and final name
    /// around the rename, and the directory. No path is looked at twice in one step, and the
    /// journal that was not there is not looked for again before the rename.
    @Test func aSmallFileLooksAtEachPathOncePerStep() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ListCostTests.run(in: directory)
        let lookups = run.count("calls-lookup")
        // A few more once per run (the directory's creation).
        #expect(lookups > 0 && lookups <= 11 * ListCostTests.count + 4, "\(lookups) path lookups for \(ListCostTests.count) files")
        // The `.part`'s own `fstat` gives its identity for every later check, and the mark's
        // its modification time.
        #expect(run.count("calls-fstat") <= 2 * ListCostTests.count, "\(run.count("calls-fstat")) fstat calls")
    }

    /// A file that needed no journal removes none (none was there, none was written): the lock
    /// file is the only name a file's download removes.
    @Test func aSmallFileRemovesOnlyItsLock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ListCostTests.run(in: directory)
        #expect(run.count("calls-unlink") == ListCostTests.count, "\(run.count("calls-unlink")) removals")
    }

    /// A file that one response brings in order is not preallocated: on tmpfs `fallocate`
    /// zeroes the pages the writes fill again.
    @Test func aSmallFileIsNotPreallocated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ListCostTests.run(in: directory)
        #expect(run.count("calls-fallocate") == 0, "\(run.count("calls-fallocate")) preallocations")
    }
}
