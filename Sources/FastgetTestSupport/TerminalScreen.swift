/// What bytes leave on a terminal of a given size, as a terminal emulator that reflows on a
/// resize (VTE, kitty, tmux) shows them: text, `\r`, `\n` (with the terminal's ONLCR), the CSI
/// sequences `A` (up), `K` (erase to the end of the line) and `J` (erase to the end of the
/// screen), autowrap with its pending-wrap state at the last column, and a screen of `rows`
/// rows whose top row goes to the scrollback when a line feed leaves its bottom row. The cursor
/// never moves above the screen's top row, so a display that goes up further than its own
/// lines erases what it finds there, and one that scrolls leaves its frames in the scrollback.
public struct TerminalScreen {
    public private(set) var columns: Int
    public private(set) var rows: Int
    /// The scrollback, then the screen.
    private var lines: [[Character]] = [[]]
    /// Whether a line continues the one above it (autowrapped, or cut by a reflow).
    private var continued: [Bool] = [false]
    private var row = 0
    private var column = 0
    private var pendingWrap = false
    /// Lines that left the screen for the scrollback.
    public private(set) var scrolled = 0

    public init(columns: Int, rows: Int) {
        (self.columns, self.rows) = (columns, rows)
    }

    /// The scrollback and the screen, trailing blank lines dropped.
    public var text: [String] {
        var text = lines.map { String($0) }
        while text.last?.isEmpty == true { text.removeLast() }
        return text
    }

    private var top: Int { max(0, lines.count - rows) }

    public mutating func write(_ bytes: [UInt8]) {
        let text = Array(String(decoding: bytes, as: UTF8.self))
        var index = 0
        while index < text.count {
            let character = text[index]
            index += 1
            switch character {
            case "\r": (column, pendingWrap) = (0, false)
            case "\n", "\r\n": lineFeed(continuing: false)
            case "\u{1B}" where index < text.count && text[index] == "[":
                var parameter = ""
                index += 1
                while index < text.count, text[index].isNumber {
                    parameter.append(text[index])
                    index += 1
                }
                guard index < text.count else { break }
                index += 1
                control(text[index - 1], Int(parameter))
            default: put(character)
            }
        }
    }

    private mutating func control(_ command: Character, _ parameter: Int?) {
        switch command {
        case "A":
            row = max(top, row - (parameter ?? 1))
            pendingWrap = false
        case "K": lines[row] = Array(lines[row].prefix(column))
        case "J":
            lines[row] = Array(lines[row].prefix(column))
            for below in (row + 1)..<lines.count { (lines[below], continued[below]) = ([], false) }
        default: break
        }
    }

    private mutating func put(_ character: Character) {
        if pendingWrap { lineFeed(continuing: true) }
        while lines[row].count < column { lines[row].append(" ") }
        if column < lines[row].count { lines[row][column] = character } else { lines[row].append(character) }
        if column == columns - 1 { pendingWrap = true } else { column += 1 }
    }

    private mutating func lineFeed(continuing: Bool) {
        (column, pendingWrap) = (0, false)
        row += 1
        if row == lines.count {
            lines.append([])
            continued.append(continuing)
            if lines.count - rows > scrolled { scrolled = lines.count - rows }
        } else if continuing {
            continued[row] = true
        }
    }

    /// The terminal resized: each line (with what continues it) wrapped again at `columns`, the
    /// cursor kept at its character, blank rows below the cursor given up first when the screen
    /// loses rows.
    public mutating func resize(columns newColumns: Int, rows newRows: Int) {
        var logical: [(text: [Character], cursor: Int?)] = []
        for (index, line) in lines.enumerated() {
            let cursor = index == row ? column + (logical.last.map { continued[index] ? $0.text.count : 0 } ?? 0) : nil
            if continued[index], !logical.isEmpty {
                logical[logical.count - 1].text += line
                if let cursor { logical[logical.count - 1].cursor = cursor }
            } else {
                logical.append((line, cursor.map { _ in column }))
            }
        }
        while logical.count > 1, logical.last!.text.isEmpty, logical.last!.cursor == nil { logical.removeLast() }
        (lines, continued, columns, rows, pendingWrap) = ([], [], newColumns, newRows, false)
        for line in logical {
            let start = lines.count
            var rest = line.text[...]
            repeat {
                lines.append(Array(rest.prefix(newColumns)))
                continued.append(lines.count - 1 > start)
                rest = rest.dropFirst(newColumns)
            } while !rest.isEmpty
            if let cursor = line.cursor { (row, column) = (start + min(cursor / newColumns, lines.count - 1 - start), cursor % newColumns) }
        }
        scrolled = max(scrolled, lines.count - rows)
    }
}
