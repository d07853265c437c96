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

    var usesTLS: Bool { self == .rawTLS }
    var isCapped: Bool { self == .capped || self == .uneven }
}

enum Caps {
    static let fast = 2.0 * 1_048_576
    static let slow = 0.5 * 1_048_576

    /// The cap of the connection with accept index `index` (0-based) in `kind`.
    static func rate(_ kind: ScenarioKind, connection index: Int) -> Double? {
        switch kind {
        case .raw, .rawTLS, .tiny: nil
        case .capped: fast
        case .uneven: index % 4 == 3 ? slow : fast
        }
    }
}

extension BenchOptions {
    /// The file size a cell downloads.
    func size(_ kind: ScenarioKind, segments: Int) -> Int64 {
        switch kind {
        case .tiny:
            1024
        case .raw, .rawTLS:
            rawSize
        case .capped:
            Int64(Double(segments) * Caps.fast * cappedSeconds)
        case .uneven:
            // The ideal rate of N connections of which every 4th is slow, for `unevenSeconds`.
            Int64((0..<segments).reduce(0.0) { $0 + (Caps.rate(.uneven, connection: $1) ?? 0) } * unevenSeconds)
        }
    }
}
