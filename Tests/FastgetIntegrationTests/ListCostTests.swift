import FastgetTestSupport
import Foundation
import Testing

/// What a file of a list costs in system calls, counted by the fault injector (armed, injecting
/// nothing): a small file that one response carries whole needs each of its paths looked at
/// once per step, its lock as its only removal, and no journal.
@Suite struct ListCostTests {
    static let count = 12
    static let files = (0..<count).map { testBytes(count: 64 * 1024, seed: UInt64(900 + $0)) }

    /// Serves the files as /f0 … and writes their list into `directory`.
    static func serve(into directory: TemporaryDirectory) throws -> TestServer {
        let files = ListCostTests.files
        let server = try TestServer { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
        let list = (0..<count).map { server.url("/f\($0)") }.joined(separator: "\n")
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        return server
    }

    static let arguments = ["-q", "-i", "urls.txt", "-j", "3", "-n", "1", "-d", "out"]

    /// Downloads the list into `out`, 3 at a time, and checks every file.
    static func run(in directory: TemporaryDirectory) throws -> FaultRun {
        let files = ListCostTests.files
        let server = try serve(into: directory)
        defer { _ = server }
        let run = try FaultRun("seed=1", arguments, in: directory.path)
        try run.requireInjector()
        #expect(run.status == 0, "\(run.stderr)")
        for index in 0..<count {
            #expect(SHA256.hex(ofFile: directory.file("out/f\(index)")) == SHA256.hex(files[index]))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
        #expect(left.count == count, "\(left.sorted())")
        return run
    }

    /// Per file: the destination, `.part` and journal looked at once, under the lock taken
    /// before the first request, the lock's own check, the free space, the `.part` and final
    /// name around the rename, and the directory. No path is looked at twice before the
    /// rename, and the journal that was not there is not looked for again.
    @Test func aSmallFileLooksAtEachPathOncePerStep() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ListCostTests.run(in: directory)
        let lookups = run.count("calls-lookup")
        // A few more once per run (the directory's creation).
        #expect(lookups > 0 && lookups <= 10 * ListCostTests.count + 4, "\(lookups) path lookups for \(ListCostTests.count) files")
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

    /// No file is renamed to its name before its bytes are durable: with every fsync failing,
    /// no rename happens at all and every file stays a `.part` (the directory syncs that
    /// downloads share come only after a rename, and none comes).
    @Test func noFileIsRenamedBeforeItsFsync() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try ListCostTests.serve(into: directory)
        defer { _ = server }
        let run = try FaultRun("fail=fsync@1+", ListCostTests.arguments, in: directory.path)
        try run.requireInjector()
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.count("calls-rename") == 0)
        #expect(run.count("fail-fsync") == ListCostTests.count)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted()
        #expect(left.allSatisfy { $0.hasSuffix(".part") } && left.count == ListCostTests.count, "\(left)")
    }

    /// One failed fsync among the files of a list fails one download: the others, whose
    /// renames a shared directory sync covers, complete; the failed one is never renamed if
    /// its own fsync failed.
    @Test(arguments: [2, 5, 9])
    func oneFailedFsyncFailsOneDownload(call: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try ListCostTests.serve(into: directory)
        defer { _ = server }
        let run = try FaultRun("fail=fsync@\(call)", ListCostTests.arguments, in: directory.path)
        try run.requireInjector()
        #expect(run.status == 74, "\(run.stderr)")
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("fastget: error: ") }
        #expect(errors.count == 1 && errors[0].contains("Input/output error"), "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
        let finals = names.filter { !$0.hasSuffix(".part") && !$0.contains(".fastget") }
        #expect(finals.count >= ListCostTests.count - 1 && finals.count == run.count("calls-rename"), "\(names.sorted())")
        for name in finals {
            let index = try #require(Int(name.dropFirst()))
            #expect(SHA256.hex(ofFile: directory.file("out/\(name)")) == SHA256.hex(ListCostTests.files[index]))
        }
    }
}
