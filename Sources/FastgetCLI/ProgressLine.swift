import Fastget

/// The progress display on a terminal: redrawn in place (at most every progress interval),
/// never scrolling; the speed is the rate over the last three seconds.
///
/// It owns only its own lines, at any size: lines stay clear of the last column (where `ESC[K`
/// would erase the last character in the terminal's pending-wrap state), a display taller than
/// the pane becomes one line (else every frame would scroll into the scrollback), and the size
/// is asked each frame, so a resize redraws at the new size.
///
/// Unchecked Sendable: it is used only on the thread that runs the download, where progress
/// callbacks and events are delivered (a batch's display calls it under its lock).
final class ProgressLine: @unchecked Sendable {
    /// Each server's, with mirrors.
    private var sourceWindows: [SpeedWindow] = []
    /// The length of each line drawn last: how many rows they take depends on the width now.
    private var drawn: [Int] = []
    /// A stream (`-o -`): the totals count connections.
    private let stream: Bool
    private let size: () -> TerminalSize
    private let write: (String) -> Void

    init(
        stream: Bool = false, size: @escaping () -> TerminalSize = { Console.terminalSize },
        write: @escaping (String) -> Void = { Console.write($0) }
    ) {
        (self.stream, self.size, self.write) = (stream, size, write)
    }

    func update(_ progress: DownloadProgress) {
        if sourceWindows.count != progress.sources.count { sourceWindows = progress.sources.map { _ in SpeedWindow(seconds: 3) } }
        for (index, source) in progress.sources.enumerated() { sourceWindows[index].add(time: progress.elapsed, bytes: source.bytes) }
        draw { width in
            ProgressView.lines(
                progress, speed: progress.bytesPerSecond, sourceSpeeds: self.sourceWindows.map(\.speed), width: width, stream: self.stream)
        }
    }

    /// Replaces what it drew last with the lines `frame` gives for a width, in place. When they
    /// are more than the pane's rows, only the one at `short` (counted from the end when
    /// negative): the line that says the most on its own.
    func draw(short: Int = 0, _ frame: (Int) -> [String]) {
        let size = size()
        // The last column stays empty; at least 20 columns, as the view's narrowest.
        let width = max(size.columns - 1, 20)
        var lines = frame(width).map { String($0.prefix(width)) }
        let alone = short < 0 ? lines.count + short : short
        if lines.count > size.rows, lines.indices.contains(alone) { lines = [lines[alone]] }
        var text = up(columns: size.columns)
        text += lines.map { "\r\u{1B}[K" + $0 }.joined(separator: "\n")
        // Whatever the last frame left below (it had more lines, or they took more rows before
        // a shrink); then back to the first column, where the cursor stays whatever the width
        // does next.
        text += "\u{1B}[J\r"
        write(text)
        drawn = lines.map(\.count)
    }

    /// Clears the display so that the summary or an error starts on a clean line.
    func clear() {
        guard !drawn.isEmpty else { return }
        write(up(columns: size().columns) + "\r\u{1B}[J")
        drawn = []
    }

    /// From the first column of the last line drawn to the first of the first: each line above
    /// takes as many rows as the terminal now wraps it into. A terminal that reflows on a
    /// shrink (most do; tmux does) wraps the old, longer lines; one that cuts them does not,
    /// and a line no longer than the new width takes one row in both.
    private func up(columns: Int) -> String {
        let rows = drawn.dropLast().reduce(0) { $0 + max(1, ($1 + columns - 1) / max(columns, 1)) }
        return rows > 0 ? "\u{1B}[\(rows)A" : ""
    }
}
