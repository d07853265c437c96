/// How many connections a pass of a download uses, decided once from the options, the file,
/// what is left of it, the per-host cap and the hosts that serve it. The run starts its
/// workers and sizes its buffers from it, the dry run and the report describe it
/// (`DownloadPlan.Connections`): they cannot drift because none of them decodes
/// `DownloadOptions.segments` on its own.
package struct ConnectionPlan: Equatable, Sendable {
    package enum Count: Equatable, Sendable {
        /// This many workers from the start; one per unfinished segment at most, as each
        /// needs one to start on.
        case fixed(Int)
        /// `first` worker(s) at the start, more while they help, up to `maximum`.
        case automatic(first: Int, maximum: Int)
    }

    package let count: Count

    /// Workers to start with.
    package var first: Int {
        switch count {
        case .fixed(let count): count
        case .automatic(let first, _): first
        }
    }

    /// The most workers the pass may have at once.
    package var most: Int {
        switch count {
        case .fixed(let count): count
        case .automatic(_, let maximum): maximum
        }
    }

    /// What a caller outside the engine sees.
    package var connections: DownloadPlan.Connections {
        switch count {
        case .fixed(let count): .fixed(count)
        case .automatic(_, let maximum): .automatic(upTo: maximum)
        }
    }

    /// What the plan is made from, besides the options and the cap.
    package struct Work: Equatable, Sendable {
        /// Whether byte ranges are fetched (false: one GET for the whole file, for a server
        /// without ranges or a file of unknown length).
        package var ranged: Bool
        /// Whether the file goes out in order (`-o -`, a device, a FIFO): through a reorder
        /// window that an automatic count's reshuffling would only stall.
        package var inOrder: Bool
        /// Segments of the table not yet complete, and the bytes they still miss.
        package var unfinished: Int
        package var remaining: Int64
        /// Distinct hosts among the file's servers (mirrors on one host share its cap).
        package var hosts: Int

        package init(ranged: Bool, inOrder: Bool = false, unfinished: Int, remaining: Int64, hosts: Int = 1) {
            (self.ranged, self.inOrder, self.unfinished, self.remaining, self.hosts) = (ranged, inOrder, unfinished, remaining, hosts)
        }
    }

    /// The count written out in order without `options.segments`: an automatic count would
    /// open and close connections at the head of the window, so a fixed one, within the cap.
    static let inOrderCount = 8

    /// The one place the count is decided:
    /// - one stream (no ranges): one connection;
    /// - `options.segments` (or, in order, `inOrderCount` within `cap`): that many, at most
    ///   one per unfinished segment;
    /// - a file small enough for one request (`Coordinator.inlineLimit`, no low-speed limit
    ///   to watch): one, fetched on the calling thread, as no added connection would pay
    ///   for its handshake;
    /// - otherwise automatic: one first, up to `cap` on each host, and never more than a
    ///   fixed count may ask for (`DownloadOptions.segmentRange`).
    package static func resolve(_ options: DownloadOptions, _ work: Work, cap: Int) -> ConnectionPlan {
        guard work.ranged else { return ConnectionPlan(count: .fixed(1)) }
        let segments = max(1, work.unfinished)
        if let fixed = options.segments ?? (work.inOrder ? min(inOrderCount, cap) : nil) {
            return ConnectionPlan(count: .fixed(min(fixed, segments)))
        }
        if work.remaining <= Coordinator.inlineLimit && options.speedLimit == nil { return ConnectionPlan(count: .fixed(1)) }
        let maximum = min(DownloadOptions.segmentRange.upperBound, cap * max(1, work.hosts))
        return ConnectionPlan(count: .automatic(first: 1, maximum: maximum))
    }

    /// The segments a fresh table is cut into (before `SegmentPlan.tiles` applies the minimum
    /// size): the fixed count; with an automatic count one, which the first connection streams
    /// while each added one takes over half of the range with the longest time to go (sixteen
    /// without stealing, for added connections to claim). Apart from `resolve`, because the
    /// table is cut before the mirrors, and so the hosts, are known.
    package static func freshSegments(_ options: DownloadOptions) -> Int {
        options.segments ?? (options.stealsWork ? 1 : 16)
    }
}
