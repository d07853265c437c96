import FastgetTestSupport
import Foundation
import Testing

/// The progress display on a real pseudo-terminal, with text before and after it: it owns only
/// its own lines. Every earlier line survives, notices stay, and the summary comes last.
@Suite struct TerminalDisplayTests {
    let data = testBytes(count: 32 << 20, seed: 91)

    /// `sh -c` printing twelve lines, then fastget with `arguments`, then "after".
    func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> TerminalRun {
        let script = "i=1; while [ $i -le 12 ]; do echo \"before $i\"; i=$((i+1)); done; \"$0\" \"$@\"; echo \"after $?\""
        return try TerminalRun(try #require(findExecutable("sh")), ["-c", script, try fastgetExecutable()] + arguments, in: directory.path)
    }

    @Test func aShrinkingDisplayLeavesTheLinesAboveIt() throws {
        // 32 connections at 4 MiB/s each: the display redraws while segments finish and its
        // speed lines go, one by one.
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 4 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-n", "32", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        let screen = result.screen
        #expect(Array(screen.prefix(12)) == (1...12).map { "before \($0)" }, "\(screen)")
        #expect(screen.count == 14 && screen[12].hasPrefix("fastget: saved f.bin (") && screen[13] == "after 0", "\(screen)")
        #expect(String(decoding: result.output, as: UTF8.self).contains("\u{1B}["), "the display was drawn")
    }

    @Test func noticesBeforeAndDuringTheDisplayStayVisible() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 4 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A damaged journal (fastget's magic, then nothing that decodes): the run says it
        // ignores it before the display starts.
        try Data("FASTGETJ damaged".utf8).write(to: URL(fileURLWithPath: directory.file("f.bin.fastget")))
        let result = try run(["-n", "16", "-o", "f.bin", server.url()], in: directory)
        #expect(result.status == 0)
        let screen = result.screen
        #expect(Array(screen.prefix(12)) == (1...12).map { "before \($0)" }, "\(screen)")
        #expect(screen.count > 13 && screen[12].hasPrefix("fastget: ignoring f.bin.fastget ("), "\(screen)")
        #expect(screen.last == "after 0" && screen[screen.count - 2].hasPrefix("fastget: saved f.bin ("), "\(screen)")
    }

    @Test func aListShowsEachRunningDownloadAndATotalAndLeavesTheLinesAbove() throws {
        let server = try TestServer(file: TestFile(Array(data.prefix(4 << 20))), TestServer.Configuration(rate: { _ in 4 * 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try (1...3).map { server.url("/f\($0).bin") }.joined(separator: "\n").write(toFile: directory.file("list"), atomically: true, encoding: .utf8)
        let result = try run(["-n", "2", "-j", "3", "-i", "list"], in: directory)
        #expect(result.status == 0)
        let screen = result.screen
        #expect(Array(screen.prefix(12)) == (1...12).map { "before \($0)" }, "\(screen)")
        #expect(screen.count == 17 && screen[12...14].allSatisfy { $0.hasPrefix("fastget: saved f") }, "\(screen)")
        #expect(screen[15] == "fastget: 3 of 3 downloads complete" && screen[16] == "after 0", "\(screen)")
        let drawn = String(decoding: result.output, as: UTF8.self)
        #expect(drawn.contains(" of 3 done, ") && drawn.contains("f1.bin  "), "a line per download and a total were drawn")
    }
}
