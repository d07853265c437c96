/// The automatic connection count's inputs, tick by tick, written to the file named by the
/// environment variable `FASTGET_TRACE` (a new file; nothing is written when it exists or
/// cannot be made). Bench's network lab records them, and the governor's unit tests replay
/// them: the governor is a pure function of these lines.
///
/// One line per tick: seconds since the pass began, all bytes, the earlier connections' bytes,
/// connections streaming, bytes remaining, the request latency in seconds, and the count.
final class GovernorTrace {
    private let file: FileDescriptor
    private var offset: Int64 = 0
    private let origin: Double

    /// A trace when `FASTGET_TRACE` names a file that can be made.
    static func fromEnvironment(now: Double) -> GovernorTrace? {
        guard let path = Environment.value("FASTGET_TRACE"), !path.isEmpty,
            let file = try? FileDescriptor.createNew(path)
        else { return nil }
        return GovernorTrace(file: file, origin: now)
    }

    private init(file: FileDescriptor, origin: Double) {
        self.file = file
        self.origin = origin
    }

    /// Writes `tick`, its time taken from the start of the pass.
    func record(_ tick: Tick) {
        let bytes = Array(Tick(tick, since: origin).line.utf8)
        if (try? file.write(bytes, at: offset)) != nil { offset += Int64(bytes.count) }
    }

    /// One parsed line: times in seconds.
    struct Tick: Equatable {
        let now: Double
        let bytes: Int64
        let earlier: Int64
        let streaming: Int
        let remaining: Int64
        let latency: Double
        let count: Int

        init(now: Double, bytes: Int64, earlier: Int64, streaming: Int, remaining: Int64, latency: Double, count: Int) {
            (self.now, self.bytes, self.earlier, self.streaming) = (now, bytes, earlier, streaming)
            (self.remaining, self.latency, self.count) = (remaining, latency, count)
        }

        /// `tick` with its time counted from `origin`.
        init(_ tick: Tick, since origin: Double) {
            self.init(
                now: tick.now - origin, bytes: tick.bytes, earlier: tick.earlier, streaming: tick.streaming,
                remaining: tick.remaining, latency: tick.latency, count: tick.count)
        }

        /// The line `record` writes: times in 1/10,000 s, latency in microseconds.
        var line: String {
            "\(Int64((now * 10_000).rounded())) \(bytes) \(earlier) \(streaming) \(remaining) \(Int64((latency * 1e6).rounded())) \(count)\n"
        }

        /// Parses a line as `record` writes it.
        init?(_ line: Substring) {
            let fields = line.split(separator: " ").compactMap { Int64($0) }
            guard fields.count == 7 else { return nil }
            now = Double(fields[0]) / 10_000
            bytes = fields[1]
            earlier = fields[2]
            streaming = Int(fields[3])
            remaining = fields[4]
            latency = Double(fields[5]) / 1e6
            count = Int(fields[6])
        }
    }
}
