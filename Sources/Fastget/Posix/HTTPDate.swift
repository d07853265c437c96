internal import Glibc

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` to and from seconds since
/// the epoch, and a file's modification time read and set in them.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since the epoch of an IMF-fixdate; nil for anything else (the obsolete forms
    /// too: a validator that cannot be compared is not used).
    package static func seconds(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1000...9999).contains(year), (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        var fields = tm()
        (fields.tm_year, fields.tm_mon, fields.tm_mday) = (Int32(year - 1900), Int32(month), Int32(day))
        (fields.tm_hour, fields.tm_min, fields.tm_sec) = (Int32(clock[0]), Int32(clock[1]), Int32(clock[2]))
        return Int(timegm(&fields))
    }

    /// Seconds since the epoch now, by the wall clock (cookie expiry is wall-clock time).
    /// The corresponding C function is `time`.
    package static func now() -> Int { Int(time(nil)) }

    /// The IMF-fixdate of `seconds` since the epoch.
    package static func text(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(fields.tm_wday)]), \(two(fields.tm_mday)) \(months[Int(fields.tm_mon)]) \(fields.tm_year + 1900) "
            + "\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec)) GMT"
    }

    /// The whole seconds of the file's modification time at `path`.
    package static func modificationSeconds(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec)
    }

    /// Sets the open file's modification (and access) time to `seconds` since the epoch.
    /// The corresponding C function is `futimens`.
    @discardableResult
    package static func setModificationTime(_ descriptor: Int32, seconds: Int) -> Bool {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        return futimens(descriptor, &times) == 0
    }
}
