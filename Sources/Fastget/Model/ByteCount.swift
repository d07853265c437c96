/// Sizes for people, in binary units as curl and aria2 print them: "17 B", "1.50 MiB",
/// "10.0 TiB". The library's messages and the command line's display share it; public so that an
/// embedder's display can print sizes the same way.
public enum ByteCount {
    private static let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]

    /// Two decimals below 10 of a unit, one above; whole bytes below 1 KiB. A value that is
    /// not a finite number of bytes (a rate over no time) is "-".
    public static func formatted(_ value: Double) -> String {
        guard value.isFinite, value >= 0 else { return "-" }
        let (amount, unit) = scaled(value, largestUnit: units.count - 1)
        if unit == 0 { return "\(Int(amount)) B" }
        let number = decimal(amount, digits: amount < 10 ? 2 : 1)
        return number == "-" ? "-" : "\(number) \(units[unit])"
    }

    /// `value` in the largest binary unit (1024 to the power `unit`, at most `largestUnit`) of
    /// which it is at least one: 1536 is (1.5, 1).
    public static func scaled(_ value: Double, largestUnit: Int) -> (amount: Double, unit: Int) {
        var amount = value
        var unit = 0
        while amount >= 1024 && unit < largestUnit {
            amount /= 1024
            unit += 1
        }
        return (amount, unit)
    }

    /// `value` rounded to `digits` decimals, without Foundation's formatters.
    /// Values beyond what an `Int` holds at that precision, and non-finite ones, are "-";
    /// `digits` is clamped to 0…6.
    public static func decimal(_ value: Double, digits: Int) -> String {
        let digits = min(max(digits, 0), 6)
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        guard value.isFinite, abs(value * scale) < 9e18 else { return "-" }
        let scaled = Int((abs(value) * scale).rounded())
        let whole = (value < 0 && scaled > 0 ? "-" : "") + String(scaled / Int(scale))
        var fraction = String(scaled % Int(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return digits == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }
}
