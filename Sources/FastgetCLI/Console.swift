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
