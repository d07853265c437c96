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
    /// Lines of at most `width` characters (ASCII only).
    static func lines(_ progress: DownloadProgress, speed: Double, sourceSpeeds: [Double] = [], width: Int) -> [String] {
        let width = max(width, 20)
        // Narrow terminals lose the segment count first, then the total size.
        let candidates = [
            totals(progress, speed: speed), totals(progress, speed: speed, segments: false),
            totals(progress, speed: speed, segments: false, total: false),
        ]
        var lines = [clip(candidates.first { $0.count <= width } ?? candidates[2], width)]
        let segments = progress.segments
        guard segments.count > 1 else { return lines }
        lines.append(map(segments, width: width))
        lines += speeds(segments, width: width)
        lines += servers(progress.sources, speeds: sourceSpeeds, width: width)
        return lines
    }

    /// `mirror.example.org 6.0M 3.1M/s  127.0.0.1:8080 2.2M dropped`, at most two lines.
    static func servers(_ sources: [SourceFigures], speeds: [Double], width: Int) -> [String] {
        let cells = sources.enumerated().map { index, source in
            let rate = source.dropped != nil ? "dropped" : index < speeds.count ? compact(speeds[index]) + "/s" : "-"
            return "\(source.host) \(compact(Double(source.bytes))) \(rate)"
        }
        return wrap(cells, width: width, lines: 2)
    }

    static func totals(_ progress: DownloadProgress, speed: Double, segments: Bool = true, total showTotal: Bool = true) -> String {
        var parts: [String] = []
        if let total = progress.totalBytes, total > 0 {
            let percent = Int(Double(progress.completedBytes) * 100 / Double(total))
            parts.append(pad("\(percent)%", 4))
            let done = Format.bytes(Double(progress.completedBytes))
            parts.append(showTotal ? "\(done) of \(Format.bytes(Double(total)))" : done)
        } else {
            parts.append(Format.bytes(Double(progress.completedBytes)))
        }
        parts.append("\(Format.bytes(speed))/s")
        if let total = progress.totalBytes, speed > 0, total > progress.completedBytes {
            parts.append("ETA \(Format.duration(Double(total - progress.completedBytes) / speed))")
        }
        let running = progress.segments.filter { $0.state == .active || $0.state == .stalled }.count
        if segments && progress.segments.count > 1 { parts.append("\(running)/\(progress.segments.count) segments") }
        return parts.joined(separator: "  ")
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
    /// ending `+N more` when they do not fit.
    static func wrap(_ cells: [String], width: Int, lines maximum: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for (number, cell) in cells.enumerated() {
            let candidate = line.isEmpty ? cell : line + "  " + cell
            if candidate.count <= width {
                line = candidate
                continue
            }
            lines.append(line)
            line = cell
            if lines.count == maximum {
                let more = "+\(cells.count - number) more"
                lines[maximum - 1] = clip(lines[maximum - 1], width - more.count - 2) + "  " + more
                return lines
            }
        }
        if !line.isEmpty { lines.append(clip(line, width)) }
        return lines
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
