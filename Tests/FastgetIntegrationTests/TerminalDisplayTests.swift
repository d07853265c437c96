import FastgetTestSupport
import Foundation
import Testing

/// The progress display on a real pseudo-terminal, with text before and after it: it owns only
/// its own lines. Every earlier line survives, notices stay, and the summary comes last.
@Suite struct TerminalDisplayTests {
    let data = testBytes(count: 32 << 20, seed: 91)

    /// `sh -c` printing twelve lines, then fastget with `arguments` (its standard output to
    /// `out` when given), then "after", on a terminal of `columns` × `rows`.
    func run(
        _ arguments: [String], in directory: TemporaryDirectory, columns: Int = 80, rows: Int = 40, resize: TerminalRun.Resize? = nil,
        out: String? = nil
    ) throws -> TerminalRun {
        let redirect = out.map { " > \($0)" } ?? ""
        let script = "i=1; while [ $i -le 12 ]; do echo \"before $i\"; i=$((i+1)); done; \"$0\" \"$@\"\(redirect); echo \"after $?\""
        return try TerminalRun(
            try #require(findExecutable("sh")), ["-c", script, try fastgetExecutable()] + arguments, in: directory.path, columns: columns,
            rows: rows, resize: resize)
    }

    /// Each frame the display drew: the text of its lines, cursor movements left out.
    static func frames(_ output: [UInt8]) -> [[String]] {
        // The terminal's ONLCR made each "\n" a "\r\n".
        let text = String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return text.components(separatedBy: "\u{1B}[J\r").dropLast().compactMap { chunk in
            guard let start = chunk.range(of: "\r\u{1B}[K") else { return nil }
            return chunk[start.lowerBound...].components(separatedBy: "\n").map { $0.replacingOccurrences(of: "\r\u{1B}[K", with: "") }
        }
    }

    /// Whether `screen`, scrollback included, holds exactly the twelve lines before, then the
    /// summary starting `summary` (on as many rows as `columns` wrap it into), then "after 0":
    /// no frame of the display left anywhere.
    static func isClean(_ screen: [String], columns: Int, summary: String) -> Bool {
        let rows = screen.dropFirst(12).dropLast()
        let text = rows.joined()
        return Array(screen.prefix(12)) == (1...12).map { "before \($0)" } && screen.last == "after 0" && text.hasPrefix(summary)
            && text.hasSuffix(")") && rows.count == (text.count + columns - 1) / columns
    }

    /// The download of `data` at 1 MiB/s per connection over 16: a second or more of frames.
    func slowServer() throws -> TestServer {
        try TestServer(file: TestFile(Array(data.prefix(16 << 20))), TestServer.Configuration(rate: { _ in 1_048_576 }))
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
        #expect(Self.isClean(result.screen, columns: 80, summary: "fastget: saved f.bin ("), "\(result.screen)")
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
        // The summary is the last line before "after 0"; with steals it is longer than 80
        // columns, and the terminal wraps it onto the next row.
        let saved = screen.lastIndex { $0.hasPrefix("fastget: saved f.bin (") }
        #expect(screen.last == "after 0", "\(screen)")
        #expect(saved.map { screen[$0..<(screen.count - 1)].joined().hasSuffix(")") } == true, "\(screen)")
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

    /// A list is read only while few enough downloads wait (4 × -j + 16 not ended: 20 at
    /// -j 1), the rest as they end; until its end was read, the total shows a "+".
    @Test func aLongListIsReadAsDownloadsEnd() throws {
        let server = try TestServer(file: TestFile(Array(data.prefix(64 << 10))), TestServer.Configuration(rate: { _ in 256 * 1024 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try (1...22).map { server.url("/f\($0).bin") }.joined(separator: "\n").write(
            toFile: directory.file("list"), atomically: true, encoding: .utf8)
        let result = try run(["-n", "1", "-j", "1", "-i", "list"], in: directory)
        #expect(result.status == 0)
        #expect(result.screen.contains("fastget: 22 of 22 downloads complete"), "\(result.screen)")
        let drawn = String(decoding: result.output, as: UTF8.self)
        #expect(drawn.contains(" of 20+ done, ") && drawn.contains(" of 22 done, "), "\(drawn.suffix(2000))")
    }

    @Test(arguments: [40, 80])
    func everyLineFitsAndNoFigureIsCut(columns: Int) throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-n", "16", "-o", "f.bin", server.url()], in: directory, columns: columns)
        #expect(result.status == 0)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(Array(data.prefix(16 << 20))))
        #expect(Self.isClean(result.screen, columns: columns, summary: "fastget: saved f.bin ("), "\(result.screen)")
        let frames = Self.frames(result.output)
        #expect(!frames.isEmpty)
        let totals = try Regex(
            #"^ *\d+%  \d+(\.\d+)? [KMG]?i?B( of \d+(\.\d+)? [KMG]?i?B)?(  \d+(\.\d+)? [KMG]?i?B/s(  ETA \S+( s)?)?)?(  \d+/16 segments)?$"#)
        let cell = try Regex(#"^(\d+:(\d+(\.\d)?[kMG]?|stalled|-)|\+\d+ more)$"#)
        for frame in frames {
            #expect(frame.allSatisfy { $0.count < columns }, "the last column stays empty: \(frame)")
            #expect(frame[0].wholeMatch(of: totals) != nil, "\(frame[0].debugDescription)")
            let cells = frame.dropFirst(2).flatMap { $0.split(separator: "  ") }
            #expect(cells.allSatisfy { $0.wholeMatch(of: cell) != nil }, "\(frame)")
        }
    }

    @Test(arguments: [40, 80])
    func aPaneShorterThanTheDisplayGetsOneLineAndNothingScrolls(columns: Int) throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 32 connections of 1 MiB: five lines or more at either width.
        let result = try run(["-n", "32", "-o", "f.bin", server.url()], in: directory, columns: columns, rows: 4)
        #expect(result.status == 0)
        // Everything the user can scroll back through: the lines before, the summary, "after".
        #expect(Self.isClean(result.screen, columns: columns, summary: "fastget: saved f.bin ("), "\(result.screen)")
        #expect(Self.frames(result.output).contains { $0.count == 1 && $0[0].contains("%") }, "one line instead of five or more")
    }

    @Test func aShrinkRedrawsWithNoStaleLine() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // To 40 columns once three frames of 80 are on the screen: their long lines now wrap.
        let shrink = TerminalRun.Resize(columns: 40, rows: 40) { Self.frames($0).count >= 3 }
        let result = try run(["-n", "16", "-o", "f.bin", server.url()], in: directory, resize: shrink)
        #expect(result.status == 0)
        let resizedAt = try #require(result.resizedAt, "resized while the display ran")
        #expect(Self.frames(Array(result.output[..<resizedAt])).contains { $0[0].count > 40 }, "lines longer than the new width")
        #expect(Self.isClean(result.screen, columns: 40, summary: "fastget: saved f.bin ("), "\(result.screen)")
    }

    @Test func aStreamCountsConnections() throws {
        let server = try slowServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-n", "8", "-o", "-", server.url()], in: directory, out: "out.bin")
        #expect(result.status == 0)
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(Array(data.prefix(16 << 20))))
        let firsts = Self.frames(result.output).map { $0[0] }
        #expect(firsts.contains { $0.hasSuffix(" connections") } && !firsts.contains { $0.contains("segments") }, "\(firsts)")
        #expect(Self.isClean(result.screen, columns: 80, summary: "fastget: wrote standard output (16.0 MiB in "), "\(result.screen)")
    }
}
