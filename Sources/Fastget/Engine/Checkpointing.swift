/// Where the coordinator records a transfer's progress durably, about once a second and when
/// it stops short (the journal's `Checkpointer`).
protocol Checkpointing: Sendable {
    /// The journal's path, for the hint that tells how to resume.
    var path: String { get }
    /// Records the table's watermarks once the bytes below them are durable; returns the bytes
    /// recorded as on disk.
    func checkpoint(_ table: SegmentTable) throws(FastgetError) -> Int64
}
