extension Cookie {
    /// The cookies of a Netscape cookie file, as curl, wget and aria2 read and write it: one
    /// cookie a line, seven fields separated by tabs (domain, whether subdomains match
    /// `TRUE`/`FALSE`, path, secure `TRUE`/`FALSE`, expiry in seconds since the epoch with 0
    /// for a session cookie, name, value). `#` starts a comment, except `#HttpOnly_` before a
    /// domain, which marks an HttpOnly cookie; LF or CRLF line ends. A line that is not a
    /// cookie (too few fields, a bad number, no name, a control character) is skipped, as
    /// curl does.
    public static func netscapeFile(_ text: String) -> [Cookie] {
        textLines(text).compactMap { line in
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
    }

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
