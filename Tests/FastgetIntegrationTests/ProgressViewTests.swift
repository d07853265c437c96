import Fastget
@testable import FastgetCLI
import Testing

/// The progress display as a pure function of snapshots.
@Suite struct ProgressViewTests {
    /// `count` segments of 1 MiB; the first third done, one stalled, one stolen from, one
    /// hedged, the last waiting, the rest receiving at 1.5 MiB/s.
    func snapshot(segments count: Int) -> DownloadProgress {
        let size: Int64 = 1 << 20
        let segments = (0..<count).map { index -> SegmentProgress in
            let range = ByteRange(start: Int64(index) * size, end: Int64(index + 1) * size)
            if count == 1 { return SegmentProgress(range: range, written: range.start + size / 2, speed: 1_572_864) }
            switch index {
            case 0..<(count / 3): return SegmentProgress(range: range, written: range.end, state: .done)
            case count - 1: return SegmentProgress(range: range, written: range.start, state: .waiting)
            case count - 2: return SegmentProgress(range: range, written: range.start + 10, speed: 1, state: .stalled)
            case count - 3: return SegmentProgress(range: range, written: range.start + 99, speed: 700_000, hedged: true)
            case count / 3: return SegmentProgress(range: range, written: range.start + 5, speed: 2_000_000, stolenFrom: true)
            default: return SegmentProgress(range: range, written: range.start + size / 2, speed: 1_572_864)
            }
        }
        let done = segments.reduce(Int64(0)) { $0 + $1.written - $1.range.start }
        return DownloadProgress(totalBytes: Int64(count) * size, completedBytes: done, elapsed: 3, segments: segments)
    }

    @Test func anETAOfAgesIsPrintedNotTrapped() {
        // Int64.max bytes left at a third of a byte per second: beyond Int.max seconds.
        let progress = DownloadProgress(totalBytes: .max, completedBytes: 1, elapsed: 3, segments: [])
        let line = ProgressView.totals(progress, speed: 1.0 / 3)
        #expect(line.contains("ETA 8333333:20:00"), "\(line)")
        #expect(Format.duration(59) == "59.0 s" && Format.duration(3661) == "1:01:01")
    }

    @Test(arguments: [40, 80, 200], [1, 16, 64])
    func fitsTheWidthAndShowsEverySegment(width: Int, segments: Int) {
        let progress = snapshot(segments: segments)
        let lines = ProgressView.lines(progress, speed: 12 * 1_048_576, width: width)
        #expect(lines.allSatisfy { $0.count <= width && $0.allSatisfy(\.isASCII) }, "\(lines)")
        #expect(lines[0].contains("% ") && lines[0].contains("12.0 MiB/s") && lines[0].contains("ETA"), "\(lines[0])")
        guard segments > 1 else {
            #expect(lines.count == 1)
            return
        }
        if width >= 80 { #expect(lines[0].hasSuffix("segments"), "\(lines[0])") }
        let map = lines[1]
        #expect(map.first == "[" && map.last == "]")
        if segments + 2 <= width {
            // One cell per segment, in order, each with its state.
            let cells = Array(map.dropFirst().dropLast())
            #expect(cells.count == segments)
            #expect(cells.prefix(segments / 3).allSatisfy { $0 == "#" })
            #expect(cells[segments / 3] == "<" && cells[segments - 3] == "^" && cells[segments - 2] == "!" && cells[segments - 1] == ".")
        } else {
            // Grouped: still every kind of trouble visible.
            #expect(map.count == width && map.contains("!") && map.contains("#"))
        }
        // Speeds of running segments, numbered from 1, never more than three lines.
        let speeds = lines.dropFirst(2)
        #expect(!speeds.isEmpty && speeds.count <= 3)
        #expect(speeds.joined(separator: " ").contains("\(segments - 1):stalled") || speeds.last!.contains("more"))
        #expect(speeds.first!.hasPrefix("\(segments / 3 + 1):1.9M"), "\(speeds)")
    }

    @Test func rendersUnknownLengthsAndCompactRates() {
        let progress = DownloadProgress(
            totalBytes: nil, completedBytes: 5 << 20, elapsed: 1,
            segments: [SegmentProgress(range: ByteRange(start: 0, end: 0), written: 0)])
        #expect(ProgressView.lines(progress, speed: 1024, width: 80) == ["5.00 MiB  1.00 KiB/s"])
        #expect(ProgressView.compact(999) == "999" && ProgressView.compact(1536) == "1.5k" && ProgressView.compact(15 * 1_048_576) == "15M")
    }

    @Test func showsEachServersBytesAndSpeedOrThatItWasDropped() {
        let base = snapshot(segments: 4)
        let sources = [
            SourceFigures(url: "http://a.example/f", host: "a.example", bytes: 6 << 20, dropped: nil),
            SourceFigures(url: "http://127.0.0.1:8080/f", host: "127.0.0.1:8080", bytes: 1_536, dropped: "connection refused"),
        ]
        let progress = DownloadProgress(
            totalBytes: base.totalBytes, completedBytes: base.completedBytes, elapsed: 3, segments: base.segments, sources: sources)
        let lines = ProgressView.lines(progress, speed: 1, sourceSpeeds: [3 * 1_048_576, 0], width: 80)
        #expect(lines.last == "a.example 6.0M 3.0M/s  127.0.0.1:8080 1.5k dropped", "\(lines)")
        // Narrow: one server per line, never wider than the terminal.
        let narrow = ProgressView.lines(progress, speed: 1, sourceSpeeds: [3 * 1_048_576, 0], width: 30)
        #expect(narrow.suffix(2) == ["a.example 6.0M 3.0M/s", "127.0.0.1:8080 1.5k dropped"], "\(narrow)")
        #expect(narrow.allSatisfy { $0.count <= 30 })
    }

    /// Every totals item, and `done of total` together, as the full line has them.
    func items(_ progress: DownloadProgress, speed: Double) -> Set<String> {
        let items = ProgressView.items(progress, speed: speed, count: true, stream: false).map { $0.text.drop { $0 == " " } }
        return Set(items.map(String.init) + [items[1] + " " + items[2]])
    }

    @Test func aNarrowTerminalDropsWholeItemsNeverPartOfANumber() throws {
        let progress = snapshot(segments: 64)
        let speed = 12.0 * 1_048_576
        let lines = ProgressView.lines(progress, speed: speed, width: 40)
        #expect(lines[0] == " 63%  40.5 MiB  12.0 MiB/s  ETA 1.96 s", "the count, then the total, went")
        #expect(lines[2...] == ["22:1.9M  23:1.5M  24:1.5M  25:1.5M", "26:1.5M  27:1.5M  28:1.5M  29:1.5M", "30:1.5M  31:1.5M  32:1.5M  +31 more"])
        let cell = try Regex(#"^(\d+:(\d+(\.\d)?[kMG]?|stalled|-)|\+\d+ more)$"#)
        for width in 20...120 {
            let lines = ProgressView.lines(progress, speed: speed, width: width)
            #expect(lines.allSatisfy { $0.count <= width }, "\(width): \(lines)")
            let shown = lines[0].split(separator: "  ").map { String($0.drop { $0 == " " }) }
            #expect(Set(shown).isSubset(of: items(progress, speed: speed)), "\(width): \(lines[0])")
            let cells = lines[2...].flatMap { $0.split(separator: "  ") }
            #expect(cells.allSatisfy { $0.wholeMatch(of: cell) != nil }, "\(width): \(lines)")
            let more = cells.last.flatMap { $0.hasPrefix("+") ? Int($0.dropFirst().prefix { $0.isNumber }) : 0 } ?? 0
            #expect(cells.filter { !$0.hasPrefix("+") }.count + more == 42, "every running segment shown or counted")
        }
    }

    @Test func aStreamCountsConnectionsNotItsWindowUnits() {
        let progress = snapshot(segments: 64)
        #expect(ProgressView.lines(progress, speed: 1, width: 120, stream: true)[0].hasSuffix("  42 connections"))
        #expect(ProgressView.totals(progress, speed: 1, stream: false, width: 120).hasSuffix("  42/64 segments"))
    }
}
