import Fastget

/// Human-readable sizes and durations, binary units as curl and aria2 print them.
enum Format {
    /// "17 B", "1.50 MiB", "10.0 TiB" (the library's messages print sizes the same way).
    static func bytes(_ value: Double) -> String { ByteCount.formatted(value) }

    static func fixed(_ value: Double, _ digits: Int) -> String { ByteCount.decimal(value, digits: digits) }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return "\(fixed(seconds, seconds < 10 ? 2 : 1)) s" }
        // An ETA from a server-claimed length near Int64.max over a trickle can exceed Int.max,
        // where the conversion traps: a thousand years is as good as forever here.
        let total = Int(min(seconds, 3e10).rounded())
        let hours = total / 3600, minutes = total / 60 % 60, secs = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
