/// One segment of a progress snapshot.
public struct SegmentProgress: Sendable {
    /// What a segment is doing.
    public enum State: String, Sendable {
        /// No worker has taken it yet.
        case waiting
        /// A worker is receiving it.
        case active
        /// A worker has it, but nothing arrived lately.
        case stalled
        /// Every byte is written.
        case done
    }

    /// The bytes the segment covers now (a steal or hedge may have shortened it).
    public let range: ByteRange
    /// The first byte not yet written.
    public let written: Int64
    /// Bytes per second lately (0 while not measured).
    public let speed: Int64
    /// What it is doing.
    public let state: State
    /// Whether an idle connection took over part of its range (a steal or a won hedge).
    public let stolenFrom: Bool
    /// Whether an idle connection is hedging its tail now, or it is a tail a hedge won.
    public let hedged: Bool

    /// A snapshot entry; `speed`, `state` and the flags describe what the coordinator saw.
    public init(
        range: ByteRange, written: Int64, speed: Int64 = 0, state: State = .active, stolenFrom: Bool = false,
        hedged: Bool = false
    ) {
        self.range = range
        self.written = written
        self.speed = speed
        self.state = state
        self.stolenFrom = stolenFrom
        self.hedged = hedged
    }
}
