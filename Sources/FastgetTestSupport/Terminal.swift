import Fastget
import Foundation
import Glibc

/// A command run on a pseudo-terminal of a given size, and what a terminal would show after
/// it: the lines of a screen that never scrolls away (moving the cursor above the first line
/// stays on it), so a display that erases more than its own lines is caught.
public struct TerminalRun {
    public let status: Int32
    /// Every byte written to the terminal.
    public let output: [UInt8]
    /// The screen at the end, trailing blank lines dropped.
    public let screen: [String]

    /// Runs `executable` with `arguments` in `directory`, its standard streams on a new
    /// pseudo-terminal of `columns` × 40. Waits at most `timeout` seconds.
    public init(_ executable: String, _ arguments: [String], in directory: String, columns: Int = 80, timeout: Double = 60) throws {
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
        var size = winsize(ws_row: 40, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw HarnessError("cannot open the pseudo-terminal") }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        (process.standardInput, process.standardOutput, process.standardError) = (terminal, terminal, terminal)
        let collected = Locked<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count <= 0 { break } // EIO once no one holds the terminal open
                collected.withLock { $0.append(contentsOf: buffer[0..<count]) }
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
        output = collected.withLock { $0 }
        screen = TerminalRun.render(output)
    }

    /// What `bytes` leave on a screen: text, `\r`, `\n`, and the CSI sequences `A` (up), `K`
    /// (erase to the end of the line) and `J` (erase to the end of the screen).
    public static func render(_ bytes: [UInt8]) -> [String] {
        var lines: [[Character]] = [[]]
        var (row, column) = (0, 0)
        var index = 0
        func put(_ character: Character) {
            while lines[row].count < column { lines[row].append(" ") }
            if column < lines[row].count { lines[row][column] = character } else { lines[row].append(character) }
            column += 1
        }
        let text = Array(String(decoding: bytes, as: UTF8.self))
        while index < text.count {
            let character = text[index]
            index += 1
            switch character {
            case "\r": column = 0
            case "\n", "\r\n":
                row += 1
                column = 0 // the terminal's ONLCR
                if row == lines.count { lines.append([]) }
            case "\u{1B}" where index < text.count && text[index] == "[":
                var parameter = ""
                index += 1
                while index < text.count, text[index].isNumber {
                    parameter.append(text[index])
                    index += 1
                }
                guard index < text.count else { break }
                let command = text[index]
                index += 1
                switch command {
                case "A": row = max(0, row - (Int(parameter) ?? 1))
                case "K": lines[row] = Array(lines[row].prefix(column))
                case "J":
                    lines[row] = Array(lines[row].prefix(column))
                    lines.removeSubrange((row + 1)...)
                default: break
                }
                while lines.count <= row { lines.append([]) }
            default: put(character)
            }
        }
        var screen = lines.map { String($0) }
        while screen.last?.isEmpty == true { screen.removeLast() }
        return screen
    }
}
