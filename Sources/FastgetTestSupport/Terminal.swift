import Fastget
import Foundation
import Glibc

/// A command run on a pseudo-terminal of a given size, and what a terminal would show after
/// it (`TerminalScreen`: a screen of that many rows whose top row goes to the scrollback), so a
/// display that erases more than its own lines, or scrolls, is caught.
public struct TerminalRun {
    public let status: Int32
    /// Every byte written to the terminal.
    public let output: [UInt8]
    /// The scrollback and the screen at the end, trailing blank lines dropped.
    public let screen: [String]
    /// Lines that went to the scrollback.
    public let scrolled: Int
    /// How many bytes of `output` the terminal had shown when it was resized (nil: it was not).
    public let resizedAt: Int?

    /// A size the terminal takes once what it has shown so far satisfies `when`: a resize in
    /// the middle of a run, as a user drags a window's edge.
    public struct Resize: Sendable {
        public let columns: Int
        public let rows: Int
        public let when: @Sendable ([UInt8]) -> Bool

        public init(columns: Int, rows: Int, when: @escaping @Sendable ([UInt8]) -> Bool) {
            (self.columns, self.rows, self.when) = (columns, rows, when)
        }
    }

    /// Runs `executable` with `arguments` in `directory`, its standard streams on a new
    /// pseudo-terminal of `columns` × `rows`, resized once by `resize`. Waits at most `timeout`
    /// seconds.
    public init(
        _ executable: String, _ arguments: [String], in directory: String, columns: Int = 80, rows: Int = 40, resize: Resize? = nil,
        timeout: Double = 60
    ) throws {
        // posix_openpt and its kin need _XOPEN_SOURCE, which Glibc's module does not set: the
        // same by hand, with Linux's TIOCSPTLCK and TIOCGPTN (macros Swift does not import).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw HarnessError("no pseudo-terminal")
        }
        defer { close(master) }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw HarnessError("cannot open the pseudo-terminal") }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        (process.standardInput, process.standardOutput, process.standardError) = (terminal, terminal, terminal)
        let collected = Locked<(bytes: [UInt8], resizedAt: Int?)>(([], nil))
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count <= 0 { break } // EIO once no one holds the terminal open
                collected.withLock { state in
                    state.bytes.append(contentsOf: buffer[0..<count])
                    // Resized here, by the reader: what it has read so far is what the
                    // terminal showed at the old size.
                    guard let resize, state.resizedAt == nil, resize.when(state.bytes) else { return }
                    var size = winsize(ws_row: UInt16(resize.rows), ws_col: UInt16(resize.columns), ws_xpixel: 0, ws_ypixel: 0)
                    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
                    state.resizedAt = state.bytes.count
                }
            }
            drained.signal()
        }.start()
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        try terminal.close()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            exited.wait()
        }
        _ = drained.wait(timeout: .now() + 10)
        status = process.terminationStatus
        (output, resizedAt) = collected.withLock { ($0.bytes, $0.resizedAt) }
        var screen = TerminalScreen(columns: columns, rows: rows)
        screen.write(Array(output.prefix(resizedAt ?? output.count)))
        if let resize, let resizedAt {
            screen.resize(columns: resize.columns, rows: resize.rows)
            screen.write(Array(output[resizedAt...]))
        }
        (self.screen, scrolled) = (screen.text, screen.scrolled)
    }

    /// What `bytes` leave on a screen of 80 × 40.
    public static func render(_ bytes: [UInt8]) -> [String] {
        var screen = TerminalScreen(columns: 80, rows: 40)
        screen.write(bytes)
        return screen.text
    }
}
