import Glibc

/// Writes to the standard streams with `write(2)`: no stdio buffers shared between threads.
enum Console {
    static func write(_ text: String, to descriptor: Int32 = 2) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
        bytes.removeAll()
    }

    static func error(_ message: String, hint: String? = nil) {
        var text = "fastget: error: \(message)\n"
        if let hint { text += "hint: \(hint)\n" }
        write(text)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Columns of the terminal on stderr (`COLUMNS` or 80 when it cannot be asked).
    static var terminalWidth: Int { terminalSize.columns }

    /// The terminal on stderr's size, asked each time (a resize between two frames shows in
    /// the next); `COLUMNS` and `LINES`, else 80 × 24, when it cannot be asked.
    static var terminalSize: TerminalSize {
        var size = winsize()
        let asked = ioctl(2, UInt(TIOCGWINSZ), &size) == 0
        func variable(_ name: String) -> Int? { getenv(name).flatMap { Int(String(cString: $0)) }.flatMap { $0 > 0 ? $0 : nil } }
        return TerminalSize(
            columns: asked && size.ws_col > 0 ? Int(size.ws_col) : variable("COLUMNS") ?? 80,
            rows: asked && size.ws_row > 0 ? Int(size.ws_row) : variable("LINES") ?? 24)
    }
}

extension Console {
    /// Seconds on the monotonic clock (`ContinuousClock` is in the concurrency runtime, which
    /// the static build leaves out).
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// Columns and rows of a terminal.
struct TerminalSize: Equatable {
    let columns: Int
    let rows: Int
}
