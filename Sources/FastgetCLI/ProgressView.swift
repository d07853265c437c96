import Fastget

/// What the progress display shows, as a pure function of a snapshot, the overall speed and the
/// terminal width: a totals line, a segment map (one cell per segment), and the speeds of the
/// segments still running, and with mirrors each server's bytes and speed.
///
/// Map cells: `#` done, `=` receiving, `<` receiving after an idle connection took part of its
/// range, `^` hedged (an idle connection races for its tail), `!` stalled, `.` waiting.
/// When there are more segments than columns, a cell stands for several (the most telling
/// state of them wins).
enum ProgressView {
    /// Lines of at most `width` characters (ASCII only). `stream`: the download goes out in
    /// order (`-o -`), its segments are small units of a window, and the totals line counts the
    /// connections receiving them instead.
    static func lines(
        _ progress: DownloadProgress, speed: Double, sourceSpeeds: [Double] = [], width: Int, stream: Bool = false
    ) -> [String] {
        let width = max(width, 20)
        var lines = [totals(progress, speed: speed, stream: stream, width: width)]
        let segments = progress.segments
        guard segments.count > 1 else { return lines }
        lines.append(map(segments, width: width))
        lines += speeds(segments, width: width)
        lines += servers(progress.sources, speeds: sourceSpeeds, width: width)
        return lines
    }

    /// `mirror.example.org 6.0M 3.1M/s  127.0.0.1:8080 2.2M dropped`, at most two lines. A host
    /// too long for the width is shortened, never its figures.
    static func servers(_ sources: [SourceFigures], speeds: [Double], width: Int) -> [String] {
        let cells = sources.enumerated().map { index, source in
            let rate = source.dropped != nil ? "dropped" : index < speeds.count ? compact(speeds[index]) + "/s" : "-"
            let figures = " \(compact(Double(source.bytes))) \(rate)"
            return String(source.host.prefix(max(1, width - figures.count))) + figures
        }
        return wrap(cells, width: width, lines: 2)
    }

    /// One item of the totals line, and how readily it goes when the line does not fit.
    struct Item {
        let text: String
        /// Dropped first: the highest. The bytes done stay, then the percentage, the speed, the
        /// ETA, the total size, and the segment (or connection) count goes first.
        let drop: Int
        /// Follows the item before it after one blank (`of 1.00 GiB`), not two.
        var attached = false
    }

    /// ` 45%  512 MiB of 1.00 GiB  14.2 MiB/s  ETA 36.0 s  5/16 segments`, with every item.
    static func totals(_ progress: DownloadProgress, speed: Double, segments: Bool = true, stream: Bool = false) -> String {
        joined(items(progress, speed: speed, count: segments, stream: stream))
    }

    /// The totals line in at most `width` characters: whole items dropped, in the order of
    /// `Item.drop`, never a figure cut short.
    static func totals(_ progress: DownloadProgress, speed: Double, stream: Bool = false, count: Bool = true, width: Int) -> String {
        var items = items(progress, speed: speed, count: count, stream: stream)
        while joined(items).count > width, let worst = items.indices.max(by: { items[$0].drop < items[$1].drop }), items[worst].drop > 0 {
            items.remove(at: worst)
        }
        return clip(joined(items), width)
    }

    static func items(_ progress: DownloadProgress, speed: Double, count: Bool, stream: Bool) -> [Item] {
        var items: [Item] = []
        if let total = progress.totalBytes, total > 0 {
            let percent = Int(Double(progress.completedBytes) * 100 / Double(total))
            items.append(Item(text: pad("\(percent)%", 4), drop: 1))
            items.append(Item(text: Format.bytes(Double(progress.completedBytes)), drop: 0))
            items.append(Item(text: "of \(Format.bytes(Double(total)))", drop: 4, attached: true))
        } else {
            items.append(Item(text: Format.bytes(Double(progress.completedBytes)), drop: 0))
        }
        items.append(Item(text: "\(Format.bytes(speed))/s", drop: 2))
        if let total = progress.totalBytes, speed > 0, total > progress.completedBytes {
            items.append(Item(text: "ETA \(Format.duration(Double(total - progress.completedBytes) / speed))", drop: 3))
        }
        let running = progress.segments.filter { $0.state == .active || $0.state == .stalled }.count
        if count && progress.segments.count > 1 {
            // A stream's segments are the units of its reorder window (thousands of them):
            // what the reader wants to know is how many connections fetch them.
            let text = stream ? Summary.counted(running, "connection") : "\(running)/\(progress.segments.count) segments"
            items.append(Item(text: text, drop: 5))
        }
        return items
    }

    private static func joined(_ items: [Item]) -> String {
        items.enumerated().reduce("") { line, next in
            next.offset == 0 ? next.element.text : line + (next.element.attached ? " " : "  ") + next.element.text
        }
    }

    /// `[##=<^!..]`, one cell per segment, or per group of segments when they do not fit.
    static func map(_ segments: [SegmentProgress], width: Int) -> String {
        let cells = min(segments.count, width - 2)
        var text = "["
        for cell in 0..<cells {
            let group = segments[(cell * segments.count / cells)..<((cell + 1) * segments.count / cells)]
            text.append(group.map(glyph).max { rank($0) < rank($1) } ?? " ")
        }
        return text + "]"
    }

    static func glyph(_ segment: SegmentProgress) -> Character {
        switch segment.state {
        case .done: "#"
        case .waiting: "."
        case .stalled: "!"
        case .active: segment.hedged ? "^" : segment.stolenFrom ? "<" : "="
        }
    }

    /// Which glyph a group shows: trouble first, then work under way.
    private static func rank(_ glyph: Character) -> Int {
        ["#", ".", "=", "<", "^", "!"].firstIndex(of: glyph) ?? 0
    }

    /// `3:1.2M  7:980k  …` for the segments still running, at most three lines.
    static func speeds(_ segments: [SegmentProgress], width: Int) -> [String] {
        let cells = segments.enumerated().filter { $0.element.state == .active || $0.element.state == .stalled }.map { index, segment in
            "\(index + 1):" + (segment.state == .stalled ? "stalled" : segment.speed > 1 ? compact(Double(segment.speed)) : "-")
        }
        return wrap(cells, width: width, lines: 3)
    }

    /// `cells` two blanks apart on lines of at most `width`, at most `maximum` lines, the last
    /// ending `+N more` when they do not fit: whole cells go to make room for it, never part of
    /// one.
    static func wrap(_ cells: [String], width: Int, lines maximum: Int) -> [String] {
        var rows: [[String]] = []
        for cell in cells {
            if let last = rows.last, (last + [cell]).joined(separator: "  ").count <= width {
                rows[rows.count - 1].append(cell)
            } else {
                rows.append([cell])
            }
        }
        if rows.count > maximum {
            var last = rows[maximum - 1]
            var shown = rows.prefix(maximum).reduce(0) { $0 + $1.count }
            func more() -> String { "+\(cells.count - shown) more" }
            while !last.isEmpty, (last + [more()]).joined(separator: "  ").count > width {
                last.removeLast()
                shown -= 1
            }
            rows = Array(rows.prefix(maximum - 1)) + [last + [more()]]
        }
        return rows.map { clip($0.joined(separator: "  "), width) }
    }

    /// A short rate for a map cell: 980k, 1.2M, 15M.
    static func compact(_ bytesPerSecond: Double) -> String {
        let units = ["", "k", "M", "G"]
        let (value, unit) = ByteCount.scaled(bytesPerSecond, largestUnit: units.count - 1)
        guard unit > 0 else { return "\(Int(value))" }
        return (value < 10 ? Format.fixed(value, 1) : "\(Int(value))") + units[unit]
    }

    private static func clip(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width)))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
