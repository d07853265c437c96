/// What a field of `DownloadOptions.headerFields` may be, and does, as curl's `-H` does: a field
/// fastget sends itself (`Host`, `User-Agent`, `Accept`, `Accept-Encoding`, `Authorization`)
/// is replaced by the user's, and an empty value removes it (any other field with an empty
/// value is not sent at all). A few fields fastget must set itself to stay correct are
/// refused; so is anything that would not be one field on one line.
public enum UserHeaderField {
    /// The fields fastget owns, by lower-cased name, with why a user's would break it.
    public static let owned: [String: String] = [
        "range": "it asks for the byte ranges itself (segments, resume)",
        "if-range": "it sends the file's validator with every range so that two versions are never mixed",
        "if-none-match": "a 304 answer is no file (timestamping asks whether the file changed)",
        "if-modified-since": "a 304 answer is no file (timestamping asks whether the file changed)",
        "content-length": "its requests have no body, and a server would wait for one",
        "transfer-encoding": "its requests have no body, and a server would wait for one",
        "connection": "it decides which connections are kept open",
        "proxy-authorization":
            "it would go to the server (through an https tunnel too), not to the proxy; give the proxy's credentials in its URL: http://USER:PASS@HOST:PORT",
    ]

    /// Why `name: value` cannot be a user's field; nil when it can.
    public static func problem(name: String, value: String) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy(HeadParser.isTokenByte) else { return "'\(name)' is not a header field name" }
        if containsLineBreakOrNUL(value) { return "the \(name) field contains a line break or NUL byte" }
        if containsControlCharacter(value) { return "the \(name) field contains a control character" }
        let lowered = name.lowercased()
        if let why = owned[lowered] { return "\(name) is fastget's to set: \(why)" }
        if lowered == "host" && value.isEmpty { return "Host cannot be removed: HTTP/1.1 requires it" }
        return nil
    }

    /// Whether `value` holds a control character other than HTAB (RFC 9110 §5.5): CR, LF and
    /// NUL would end the field it goes into, and servers and proxies differ on the others, so
    /// no field value fastget sends carries one.
    public static func holdsControlCharacter(_ value: String) -> Bool { containsControlCharacter(value) }

    /// The fields of a request: fastget's own (`standard`, in order), each replaced by the user's
    /// last field of the same name (`user`; one value, never a second copy) or removed when that
    /// one is empty; the user's other fields follow, those with an empty value left out.
    package static func merged(
        _ standard: [(name: String, value: String)], _ user: [(name: String, value: String)]
    ) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var placed = Set<String>()
        let given = Set(user.map { $0.name.lowercased() })
        for field in standard {
            let name = field.name.lowercased()
            guard given.contains(name) else {
                fields.append(field)
                continue
            }
            guard placed.insert(name).inserted, let last = user.last(where: { $0.name.lowercased() == name }), !last.value.isEmpty
            else { continue }
            fields.append(last)
        }
        fields += user.filter { !placed.contains($0.name.lowercased()) && !$0.value.isEmpty }
        return fields
    }
}
