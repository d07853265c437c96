/// An idle worker's request for the tail of a slow segment, not yet owning it.
struct Hedge {
    let victim: Segment
    /// The range asked for, with its own watermark; inserted into the table on commit.
    let tail: Segment
    let thiefSpeed: Int64
}

/// A hedge found that the victim reached its tail first.
struct HedgeLost: Error {}
