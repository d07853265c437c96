/// The dates of `Set-Cookie`'s `Expires` (RFC 6265 §5.1.1): servers write every form there
/// is (`Wed, 09 Jun 2021 10:18:14 GMT`, `Wednesday, 09-Jun-21 10:18:14 GMT`, asctime's), so
/// the date is read token by token, the first time, day, month and year found, whatever
/// the order and the delimiters.
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since the epoch; nil when a part is missing or out of range (the attribute is
    /// then ignored, and the cookie lasts for the session).
    static func seconds(_ text: String) -> Int? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let found = clock(token) {
                time = found
            } else if day == nil, let found = number(token, digits: 1...2) {
                day = found
            } else if month == nil, token.count >= 3,
                let found = months.firstIndex(of: String(decoding: token.prefix(3), as: UTF8.self).lowercased())
            {
                month = found + 1
            } else if year == nil, let found = number(token, digits: 2...4) {
                year = found
            }
        }
        guard var year, let month, let day, let (hour, minute, second) = time else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        return ((daysFromEpoch(year: year, month: month, day: day) * 24 + hour) * 60 + minute) * 60 + second
    }

    /// RFC 6265's delimiter: tab, space to `/`, `;` to `@`, `[` to `` ` ``, `{` to `~`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// A token that starts with `digits` digits and then has no digit next: that number.
    private static func number(_ token: Substring.UTF8View.SubSequence, digits: ClosedRange<Int>) -> Int? {
        let leading = token.prefix(while: isDigit)
        guard digits.contains(leading.count) else { return nil }
        return leading.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `h:m:s` with one or two digits each (and anything but a digit after the seconds).
    private static func clock(_ token: Substring.UTF8View.SubSequence) -> (Int, Int, Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].allSatisfy(isDigit), parts[1].allSatisfy(isDigit),
            let hour = number(parts[0], digits: 1...2), let minute = number(parts[1], digits: 1...2),
            let second = number(parts[2], digits: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's algorithm).
    private static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
