import Fastget

/// Where stderr is not a terminal (a pipe, a CI log): a plain line every few seconds.
final class ProgressLog {
    private var lastLine = -1.0
    private let interval: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    init(interval: Double = 3) { self.interval = interval }

    func update(_ progress: DownloadProgress) {
        samples.append((progress.elapsed, progress.completedBytes))
        while let first = samples.first, progress.elapsed - first.time > 5, samples.count > 2 { samples.removeFirst() }
        guard lastLine < 0 || progress.elapsed - lastLine >= interval else { return }
        if lastLine < 0 { lastLine = progress.elapsed; return } // nothing worth saying at the start
        lastLine = progress.elapsed
        var speed = 0.0
        if let first = samples.first, let last = samples.last, last.time > first.time {
            speed = Double(last.bytes - first.bytes) / (last.time - first.time)
        }
        Console.write("fastget: " + ProgressView.totals(progress, speed: speed).trimmingLeadingSpaces() + "\n")
    }
}

private extension String {
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " }) }
}
