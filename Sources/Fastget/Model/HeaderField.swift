/// A request header field a download sends with every request (`DownloadOptions.headerFields`,
/// curl's `-H`). It exists only when fastget can send it: its name is a token and its value
/// holds no CR, LF, NUL or other control character (HTAB aside), so no value can end the field
/// and smuggle in another; fields fastget must own (`Range`, `If-Range`, `Connection`, …) and
/// an empty `Host` are refused too. An empty value removes a field fastget would send itself
/// (`User-Agent`, `Accept`, …).
public struct HeaderField: Sendable, Hashable {
    /// The field's name, as given (names compare without case).
    public let name: String
    /// The field's value; empty removes fastget's own field of this name.
    public let value: String

    /// A field, or `.usage` saying why it cannot be one (`UserHeaderField.problem`).
    public init(name: String, value: String) throws(FastgetError) {
        if let problem = UserHeaderField.problem(name: name, value: value) { throw FastgetError(.usage, problem) }
        self.init(unchecked: name, value)
    }

    /// A field not checked yet: only the deprecated `DownloadOptions.headers` makes one, and
    /// `DownloadOptions.validate()` checks every field before a download uses it.
    init(unchecked name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// The pair as the request builder takes it.
    var pair: (name: String, value: String) { (name, value) }
}
