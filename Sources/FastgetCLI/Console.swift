import Fastget
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
    static var terminalWidth: Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
        return 80
    }
}

/// Human-readable sizes and durations, binary units as curl and aria2 print them.
enum Format {
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var amount = value
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        return unit == 0 ? "\(Int(amount)) B" : "\(fixed(amount, amount < 10 ? 2 : 1)) \(units[unit])"
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return digits == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return "\(fixed(seconds, seconds < 10 ? 2 : 1)) s" }
        // An ETA from a server-claimed length near Int64.max over a trickle can exceed Int.max,
        // where the conversion traps: a thousand years is as good as forever here.
        let total = Int(min(seconds, 3e10).rounded())
        let hours = total / 3600, minutes = total / 60 % 60, secs = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}

/// `-v`: what the download does, a line per request, retry, steal, hedge and checkpoint.
enum Verbose {
    static func line(_ event: DownloadEvent) -> String? {
        switch event {
        case .request(let method, let url, let range):
            return "> \(method) \(url)" + (range.map { " (\($0))" } ?? "")
        case .retry(let attempt, let error):
            return "retry \(attempt): \(error.message)"
        case .steal(let range):
            return "steal: an idle connection takes bytes \(range.start)-\(range.end - 1)"
        case .hedge(let range, let won):
            return "hedge on bytes \(range.start)-\(range.end - 1) " + (won ? "won: the slow connection stops there" : "lost: the slow connection got there first")
        case .checkpoint(let bytes):
            return "checkpoint: \(Format.bytes(Double(bytes))) on disk"
        default:
            return nil
        }
    }
}
