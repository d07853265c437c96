extension Cookie {
    /// The cookies of a Netscape cookie file, as curl, wget and aria2 read and write it: one
    /// cookie a line, seven fields separated by tabs (domain, whether subdomains match
    /// `TRUE`/`FALSE`, path, secure `TRUE`/`FALSE`, expiry in seconds since the epoch with 0
    /// for a session cookie, name, value). `#` starts a comment, except `#HttpOnly_` before a
    /// domain, which marks an HttpOnly cookie; LF or CRLF line ends. A line that is not a
    /// cookie (too few fields, a bad number, no name, a control character) is skipped, as
    /// curl does.
    public static func netscapeFile(_ text: String) -> [Cookie] { readNetscapeFile(text).cookies }

    /// `netscapeFile(_:)`'s cookies, and how many lines it skipped that were neither a comment
    /// nor empty: what rewriting the file would lose.
    public static func readNetscapeFile(_ text: String) -> (cookies: [Cookie], skipped: Int) {
        var skipped = 0
        let cookies = textLines(text).compactMap { line in
            let cookie = netscapeLine(line)
            if cookie == nil && !line.utf8.isEmpty && (!Cookie.starts(line, with: "#") || line.utf8.starts(with: "#HttpOnly_".utf8)) {
                skipped += 1
            }
            return cookie
        }
        return (cookies, skipped)
    }

    /// The cookie of one line of a cookie file; nil for a comment or a line that is not one.
    private static func netscapeLine(_ line: Substring) -> Cookie? {
        var line = line
        var httpOnly = false
        if line.utf8.starts(with: "#HttpOnly_".utf8) {
            line = Substring(line.utf8.dropFirst("#HttpOnly_".utf8.count))
            httpOnly = true
        } else if Cookie.starts(line, with: "#") {
            return nil
        }
        // Split on bytes: a tab before a combining mark would be no Character of its own.
        let fields = line.utf8.split(separator: 0x09, omittingEmptySubsequences: false).map { Substring($0) }
        // curl writes an empty value as a missing seventh field.
        guard fields.count == 7 || fields.count == 6, !fields[0].isEmpty, !fields[5].isEmpty,
            let expires = Int(fields[4]), expires >= 0, Cookie.starts(fields[2], with: "/"), !Cookie.canonical(String(fields[0])).isEmpty
        else { return nil }
        let value = fields.count == 7 ? String(fields[6]) : ""
        guard !containsControlCharacter(line), !fields[5].utf8.contains(0x3D), !(fields[5] + value).utf8.contains(0x3B) else {
            return nil
        }
        return Cookie(
            name: String(fields[5]), value: value, domain: String(fields[0]),
            hostOnly: fields[1].uppercased() != "TRUE" && !Cookie.starts(fields[0], with: "."), path: String(fields[2]),
            secure: fields[3].uppercased() == "TRUE", httpOnly: httpOnly, expires: expires == 0 ? nil : expires)
    }

    /// The most bytes its line in a cookie file takes (`netscapeText`): its name, value,
    /// domain and path, and the rest at its longest (`#HttpOnly_`, a dot, six tabs, two
    /// `FALSE`, a 19-digit expiry, the line end).
    var fileSize: Int { name.utf8.count + value.utf8.count + domain.utf8.count + path.utf8.count + 48 }

    /// `cookies` as a Netscape cookie file (`netscapeFile(_:)` reads it back), with curl's
    /// first line so that the tools that check for it accept it. A session cookie gets 0.
    public static func netscapeText(_ cookies: [Cookie]) -> String {
        var text = "# Netscape HTTP Cookie File\n# Written by fastget: cookies are credentials, keep this file private.\n\n"
        for cookie in cookies {
            let domain = cookie.hostOnly ? cookie.domain : "." + cookie.domain
            let fields = [
                (cookie.httpOnly ? "#HttpOnly_" : "") + domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path,
                cookie.secure ? "TRUE" : "FALSE", String(cookie.expires.map { max($0, 1) } ?? 0), cookie.name, cookie.value,
            ]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }
}
