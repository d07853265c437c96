import Fastget
import Glibc

/// `-i` on a terminal: a line per running download and a total line, redrawn in place (what
/// was printed above stays); a finished download's line is printed above the display.
///
/// Downloads report from their own threads: every call takes the lock.
final class BatchDisplay: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private let display = ProgressLine()
    private var running: [(url: String, name: String, progress: DownloadProgress)] = []
    private var finished = 0
    /// URLs listed so far: the list is read as it arrives, and as downloads end; `more` until
    /// its end was read (the total shows a "+" meanwhile).
    private var count = 0
    private var more = true
    private var lastDraw = 0.0

    init() {
        pthread_mutex_init(&lock, nil)
    }

    /// `count` URLs are listed now.
    func listed(_ count: Int) { locked { self.count = count } }

    /// The list was read to its end (or stopped being read).
    func listEnded() { locked { more = false } }

    deinit { pthread_mutex_destroy(&lock) }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return body()
    }

    /// A download's progress; redrawn at most ten times a second.
    func update(_ url: String, name: String, _ progress: DownloadProgress) {
        locked {
            if let index = running.firstIndex(where: { $0.url == url }) {
                running[index].progress = progress
            } else {
                running.append((url, name, progress))
            }
            let now = Console.monotonicSeconds()
            guard now - lastDraw >= 0.1 else { return }
            lastDraw = now
            display.draw(short: -1, lines)
        }
    }

    /// `text` above the display (a download's summary, an error), and the download gone from it.
    func print(_ text: String, finishing url: String? = nil) {
        locked {
            if let url {
                running.removeAll { $0.url == url }
                finished += 1
            }
            display.clear()
            Console.write(text)
            if !running.isEmpty { display.draw(short: -1, lines) }
        }
    }

    /// Clears the display for what comes after it.
    func clear() { locked { display.clear() } }

    /// `name  45%  12.0 MiB of 27.0 MiB  3.20 MiB/s` per running download (at most eight), then
    /// `3 of 10 done, 2 running, 6.40 MiB/s`; a narrow terminal drops whole items of each line
    /// and shortens the names to at most half of it.
    private func lines(width: Int) -> [String] {
        var lines = running.prefix(8).map { item -> String in
            let name = String(item.name.prefix(width / 2))
            let text = ProgressView.totals(item.progress, speed: item.progress.bytesPerSecond, count: false, width: width - name.count - 2)
            return name + "  " + text.drop { $0 == " " }
        }
        if running.count > 8 { lines.append("+\(running.count - 8) more") }
        let speed = running.reduce(0) { $0 + $1.progress.bytesPerSecond }
        lines.append(
            String("\(finished) of \(count)\(more ? "+" : "") done, \(running.count) running, \(Format.bytes(speed))/s".prefix(max(20, width))))
        return lines
    }
}
