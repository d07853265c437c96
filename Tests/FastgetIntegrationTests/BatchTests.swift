import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// `-i FILE -j K`: a list of URLs through the download queue.
@Suite struct BatchTests {
    static let files = (0..<20).map { testBytes(count: 96 * 1024, seed: UInt64(300 + $0)) }

    func server() throws -> TestServer {
        let files = BatchTests.files
        return try TestServer(TestServer.Configuration(rate: { _ in 384 * 1024 })) { request in
            guard request.target.hasPrefix("/f"), let index = Int(request.target.dropFirst(2)), files.indices.contains(index) else {
                return .status(404)
            }
            return .file(TestFile(files[index]))
        }
    }

    @Test func twentyURLsFourAtATime() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var list = "# the files\n\n"
        for index in 0..<20 { list += "  \(server.url("/f\(index)"))  \n" }
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: false)
        let result = try runProcess(
            try fastgetExecutable(), ["-i", "urls.txt", "-j", "4", "-n", "1", "-d", "out"],
            in: directory.path, timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        for index in 0..<20 {
            #expect(SHA256.hex(ofFile: directory.file("out/f\(index)")) == SHA256.hex(BatchTests.files[index]))
        }
        #expect(result.stderr.hasSuffix("fastget: 20 of 20 downloads complete\n"), "\(result.stderr)")
        let (files, most) = server.mostFilesAtOnce()
        #expect(files == 20 && most <= 4 && most >= 2, "\(most) at once")
    }

    @Test func readsStandardInputAndExitsWithTheFirstFailure() throws {
        let server = try server()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = [server.url("/f1"), server.url("/missing"), server.url("/f2")].joined(separator: "\n")
        try list.write(toFile: directory.file("urls.txt"), atomically: true, encoding: .utf8)
        let shell = try #require(findExecutable("sh"))
        let result = try runProcess(shell, ["-c", "'\(try fastgetExecutable())' -q -j 2 -i - < urls.txt"], in: directory.path, timeout: 60)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("/missing: server answered 404"), "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("f1")) == SHA256.hex(BatchTests.files[1]))
        #expect(SHA256.hex(ofFile: directory.file("f2")) == SHA256.hex(BatchTests.files[2]))
    }

    @Test(arguments: [
        (["-i", "u.txt", "http://h/"], "fastget: error: give URLs either with -i or on the command line, not both\n"),
        (["-i", "u.txt", "-o", "x"], "fastget: error: -o names one file; with -i use -d DIR\n"),
        (["-i", "u.txt", "-j", "0"], "fastget: error: option -j must be between 1 and 64 (got 0)\n"),
    ])
    func refusesContradictions(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 30)
        #expect(result.status == 64 && result.stderr == message + "hint: see fastget --help\n")
    }
}
