/// Human-readable sizes and durations, binary units as curl and aria2 print them.
enum Format {
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        let (amount, unit) = scaled(value, largestUnit: units.count - 1)
        return unit == 0 ? "\(Int(amount)) B" : "\(fixed(amount, amount < 10 ? 2 : 1)) \(units[unit])"
    }

    /// `value` in the largest binary unit (1024 to the power `unit`, at most `largestUnit`) of
    /// which it is at least one: 1536 is (1.5, 1). Every size and rate the CLI prints is scaled
    /// here; only the spelling differs (`bytes`, `ProgressView.compact`).
    static func scaled(_ value: Double, largestUnit: Int) -> (amount: Double, unit: Int) {
        var amount = value
        var unit = 0
        while amount >= 1024 && unit < largestUnit {
            amount /= 1024
            unit += 1
        }
        return (amount, unit)
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return digits == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }

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
