import Fastget
@testable import FastgetCLI
import FastgetTestSupport
import Testing

/// The bytes the terminal display writes, for a size it is told: in place, over exactly the
/// rows its last frame takes now, one line in a pane too short for it.
@Suite struct ProgressLineTests {
    /// A display at a size `size` returns, writing into `written`.
    final class Recorder: @unchecked Sendable {
        var size = TerminalSize(columns: 80, rows: 40)
        var written: [String] = []
        lazy var line = ProgressLine(size: { self.size }, write: { self.written.append($0) })
    }

    let long = String(repeating: "a", count: 70)

    @Test func redrawsOverTheRowsItsLinesTakeAfterAShrink() {
        let recorder = Recorder()
        recorder.line.draw { _ in [self.long, "bbb", "cc"] }
        #expect(recorder.written == ["\r\u{1B}[K\(long)\n\r\u{1B}[Kbbb\n\r\u{1B}[Kcc\u{1B}[J\r"])
        // 40 columns now: the 70 characters take two rows, the two lines above the last three.
        recorder.size = TerminalSize(columns: 40, rows: 40)
        recorder.line.draw { width in [String(repeating: "x", count: width + 5), "y"] }
        let x = String(repeating: "x", count: 39)
        #expect(recorder.written.last == "\u{1B}[3A\r\u{1B}[K\(x)\n\r\u{1B}[Ky\u{1B}[J\r", "the last column stays empty")
        recorder.line.clear()
        #expect(recorder.written.last == "\u{1B}[1A\r\u{1B}[J")
        // On a terminal that reflows, "before" stays and nothing else does.
        var screen = TerminalScreen(columns: 80, rows: 40)
        screen.write(Array("before\n".utf8) + Array(recorder.written[0].utf8))
        screen.resize(columns: 40, rows: 40)
        screen.write(Array(recorder.written.dropFirst().joined().utf8) + Array("after\n".utf8))
        #expect(screen.text == ["before", "after"], "\(screen.text)")
    }

    @Test func aPaneShorterThanTheDisplayGetsItsFirstLineOnly() {
        let recorder = Recorder()
        recorder.size = TerminalSize(columns: 80, rows: 4)
        recorder.line.draw { _ in ["one", "two", "three", "four", "five"] }
        recorder.line.draw { _ in ["one", "two", "three", "four", "five"] }
        #expect(recorder.written == ["\r\u{1B}[Kone\u{1B}[J\r", "\r\u{1B}[Kone\u{1B}[J\r"])
        recorder.line.draw { _ in ["one", "two", "three", "four"] }
        #expect(recorder.written.last == "\r\u{1B}[Kone\n\r\u{1B}[Ktwo\n\r\u{1B}[Kthree\n\r\u{1B}[Kfour\u{1B}[J\r", "four fit")
        // A batch's total says the most on its own: the last line.
        recorder.line.draw(short: -1) { _ in ["a", "b", "c", "d", "3 of 9 done"] }
        #expect(recorder.written.last == "\u{1B}[3A\r\u{1B}[K3 of 9 done\u{1B}[J\r")
    }

    @Test func theSummaryAndVerboseCountConnectionsInOneWordEach() {
        #expect(Summary.counted(1, "connection") == "1 connection" && Summary.counted(2, "retry", plural: "retries") == "2 retries")
    }
}
