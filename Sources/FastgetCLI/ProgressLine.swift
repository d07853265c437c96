import Fastget

/// The progress display on a terminal: redrawn in place (at most every progress interval),
/// never scrolling; the speed is the rate over the last three seconds.
///
/// Unchecked Sendable: it is used only on the thread that runs the download, where progress
/// callbacks and events are delivered.
final class ProgressLine: @unchecked Sendable {
    private var window = SpeedWindow(seconds: 3)
    /// Each server's, with mirrors.
    private var sourceWindows: [SpeedWindow] = []
    private var drawnLines = 0

    func update(_ progress: DownloadProgress) {
        window.add(progress)
        if sourceWindows.count != progress.sources.count { sourceWindows = progress.sources.map { _ in SpeedWindow(seconds: 3) } }
        for (index, source) in progress.sources.enumerated() { sourceWindows[index].add(time: progress.elapsed, bytes: source.bytes) }
        draw(ProgressView.lines(progress, speed: window.speed, sourceSpeeds: sourceWindows.map(\.speed), width: Console.terminalWidth))
    }

    /// Replaces what it drew last with `lines`, in place.
    func draw(_ lines: [String]) {
        var text = drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)A" : ""
        text += lines.map { "\r\u{1B}[K" + $0 }.joined(separator: "\n")
        // Fewer lines than last time: clear the ones left below, then come back up.
        if drawnLines > lines.count {
            let extra = drawnLines - lines.count
            text += String(repeating: "\n\r\u{1B}[K", count: extra) + "\u{1B}[\(extra)A"
        }
        Console.write(text)
        // The cursor is on the last line of what was just drawn, whatever was there before: the
        // next redraw goes up from here (counting the old, longer display went too far up and
        // erased the user's own lines above it).
        drawnLines = lines.count
    }

    /// Clears the display so that the summary or an error starts on a clean line.
    func clear() {
        guard drawnLines > 0 else { return }
        var text = drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)A" : ""
        text += "\r\u{1B}[J"
        Console.write(text)
        drawnLines = 0
    }
}
