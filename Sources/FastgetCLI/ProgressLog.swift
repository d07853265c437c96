import Fastget

/// Where stderr is not a terminal (a pipe, a CI log): a plain line every few seconds; the speed
/// is the rate over the last five seconds.
final class ProgressLog {
    private var lastLine = -1.0
    private let interval: Double
    private var window = SpeedWindow(seconds: 5)

    init(interval: Double = 3) { self.interval = interval }

    func update(_ progress: DownloadProgress) {
        window.add(progress)
        guard lastLine < 0 || progress.elapsed - lastLine >= interval else { return }
        if lastLine < 0 { lastLine = progress.elapsed; return } // nothing worth saying at the start
        lastLine = progress.elapsed
        Console.write("fastget: " + ProgressView.totals(progress, speed: window.speed).trimmingLeadingSpaces() + "\n")
    }
}

extension String {
    fileprivate func trimmingLeadingSpaces() -> String { String(drop { $0 == " " }) }
}
