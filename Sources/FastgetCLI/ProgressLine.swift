import Fastget

/// The one-line progress display on a terminal: bytes, percentage, speed over the last few
/// seconds, ETA and segment count; redrawn in place.
final class ProgressLine {
    private var samples: [(time: Double, bytes: Int64)] = []
    private var drawn = false

    func update(_ progress: DownloadProgress) {
        samples.append((progress.elapsed, progress.completedBytes))
        while let first = samples.first, progress.elapsed - first.time > 3, samples.count > 2 { samples.removeFirst() }
        let speed = currentSpeed()
        var line = Format.bytes(Double(progress.completedBytes))
        if let total = progress.totalBytes, total > 0 {
            let percent = Int(Double(progress.completedBytes) * 100 / Double(total))
            line += " / \(Format.bytes(Double(total)))  \(percent)%"
        }
        line += "  \(Format.bytes(speed))/s"
        if let total = progress.totalBytes, speed > 0 {
            line += "  ETA \(Format.duration(Double(total - progress.completedBytes) / speed))"
        }
        let active = progress.segments.filter { $0.written < $0.range.end }.count
        line += "  [\(active)/\(progress.segments.count) segments]"
        Console.write("\r\u{1B}[K" + line)
        drawn = true
    }

    /// Clears the line so that the summary or an error starts on a clean line.
    func clear() {
        if drawn { Console.write("\r\u{1B}[K") }
        drawn = false
    }

    private func currentSpeed() -> Double {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }
}
