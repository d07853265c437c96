/// What a benchmark scenario measures.
enum ScenarioKind: String, CaseIterable, Codable {
    /// Unthrottled, plain HTTP: the engine's own cost.
    case raw
    /// Unthrottled over TLS.
    case rawTLS = "raw-tls"
    /// Every connection capped at 2 MiB/s: the classic case for segmented downloads.
    case capped
    /// Every 4th connection capped at 0.5 MiB/s, the others at 2 MiB/s: exposes the slow tail.
    case uneven
    /// A 1 KiB file, one segment: the whole process's start-up and request latency.
    case tiny
    /// Many small files (`--files` × `--file-size`), `--parallel` at once: `fastget -i LIST -j P`.
    case many
    /// The same over TLS: handshakes and connection reuse.
    case manyTLS = "many-tls"
    /// The automatic connection count (no `-n`) against fixed ones, on the unthrottled raw file.
    case auto
    /// The automatic connection count on connections capped at 2 MiB/s each, judged against the
    /// capacity of 16 such connections.
    case autoCapped = "auto-capped"
    /// One file from two embedded servers, every connection capped at 2 MiB/s.
    case mirrors
    /// The same with the second server's connections at a quarter of that.
    case mirrorsSlow = "mirrors-slow"
    /// Two servers at 2 MiB/s per connection; the second stops one second into the run.
    case mirrorsDying = "mirrors-dying"

    /// What runs without `--scenarios`: the many and auto scenarios are opt-in (minutes each).
    static let defaults: [ScenarioKind] = [.raw, .rawTLS, .capped, .uneven, .tiny]

    var usesTLS: Bool { self == .rawTLS || self == .manyTLS }
    /// Whether the server caps connections (`Caps.rate`).
    var isCapped: Bool { self == .capped || self == .uneven || self == .autoCapped }
    /// A list of files instead of one file.
    var isMany: Bool { self == .many || self == .manyTLS }
    /// One file from two servers (`MirrorSet`).
    var isMirrors: Bool { self == .mirrors || self == .mirrorsSlow || self == .mirrorsDying }
}

enum Caps {
    static let fast = 2.0 * 1_048_576
    static let slow = 0.5 * 1_048_576
    /// `auto-capped`'s ideal: the capacity of this many capped connections (fastget's default
    /// `--max-per-host`), whatever number of connections a run used.
    static let autoIdealConnections = 16

    /// The cap of the connection with accept index `index` (0-based) in `kind`.
    static func rate(_ kind: ScenarioKind, connection index: Int) -> Double? {
        switch kind {
        case .raw, .rawTLS, .tiny, .many, .manyTLS, .auto, .mirrors, .mirrorsSlow, .mirrorsDying: nil
        case .capped, .autoCapped: fast
        case .uneven: index % 4 == 3 ? slow : fast
        }
    }

    /// A mirrors scenario's cap per connection on server `server` (0 or 1).
    static func mirrorRate(_ kind: ScenarioKind, server: Int) -> Double {
        kind == .mirrorsSlow && server == 1 ? fast / 4 : fast
    }

    /// Seconds into a `mirrors-dying` run when the second server stops.
    static let dyingAfter = 1.0

    /// A mirrors scenario's ideal (bytes/s) at N connections: half of them (rounded up) on the
    /// first server, the rest on the second, each at its cap. For `mirrors-dying`, N at the
    /// surviving server's cap: the second's loss should cost nothing but a reconnect.
    static func mirrorIdeal(_ kind: ScenarioKind, segments: Int) -> Double {
        if kind == .mirrorsDying { return Double(segments) * mirrorRate(kind, server: 0) }
        return Double((segments + 1) / 2) * mirrorRate(kind, server: 0) + Double(segments / 2) * mirrorRate(kind, server: 1)
    }

    /// The ideal throughput (bytes/s) of a run whose data came over `connections` (accept
    /// indices); nil where the connections are not capped.
    static func ideal(_ kind: ScenarioKind, connections: Set<Int>) -> Double? {
        switch kind {
        case .autoCapped: fast * Double(autoIdealConnections)
        case .capped, .uneven: connections.reduce(0.0) { $0 + (rate(kind, connection: $1) ?? 0) }
        default: nil
        }
    }
}

extension BenchOptions {
    /// The file size a cell downloads (for `many`: each file's).
    func size(_ kind: ScenarioKind, segments: Int) -> Int64 {
        switch kind {
        case .tiny:
            1024
        case .raw, .rawTLS, .auto:
            rawSize
        case .capped:
            Int64(Double(segments) * Caps.fast * cappedSeconds)
        case .uneven:
            // The ideal rate of N connections of which every 4th is slow, for `unevenSeconds`.
            Int64((0..<segments).reduce(0.0) { $0 + (Caps.rate(.uneven, connection: $1) ?? 0) } * unevenSeconds)
        case .autoCapped:
            // The same file at every N: `autoCappedSeconds` at the ideal of 16 connections.
            Int64(Double(Caps.autoIdealConnections) * Caps.fast * autoCappedSeconds)
        case .many, .manyTLS:
            Int64(manyFileSize)
        case .mirrors, .mirrorsSlow, .mirrorsDying:
            // `mirrorsSeconds` at the scenario's ideal.
            Int64(Caps.mirrorIdeal(kind, segments: segments) * mirrorsSeconds)
        }
    }

    /// The segment counts a scenario runs, in order; 0 is fastget's automatic count (no `-n`).
    /// For `many` the one count is `--parallel`, the downloads at once.
    func counts(_ kind: ScenarioKind) -> [Int] {
        switch kind {
        case .tiny:
            return [1]
        case .many, .manyTLS:
            return [manyParallel]
        case .auto:
            // N = 1 is where the anchors run (`--compare`), and fastget's own single connection.
            let fixed = explicitSegments ?? [1, 4, 16]
            return [0] + fixed + (compare && !fixed.contains(1) ? [1] : [])
        case .autoCapped:
            // N = 1 would take 16 × `autoCappedSeconds`: only when asked for.
            return [0] + (explicitSegments ?? [4, 16])
        case .mirrors, .mirrorsSlow, .mirrorsDying:
            return explicitSegments ?? [8]
        case .raw, .rawTLS, .capped, .uneven:
            return segments
        }
    }
}
