import Fastget

/// `-b`, `--load-cookies`, `--save-cookies` and `-e`: cookies as curl, wget and aria2 take
/// them, and the `Referer` curl's `-e` sends. The cookies live in one `CookieJar` that every
/// download of the run shares; the library stores each `Set-Cookie` in it and sends what
/// matches (RFC 6265), never to another site.
enum CookieOptions {
    /// `-b DATA`: curl's rule decides by the value: with a `=` it is the cookies themselves
    /// (`name=value; n2=v2`, sent to the URL's own origin only, like `-H 'Cookie: …'`);
    /// without one it names a Netscape cookie file, read as `--load-cookies` does.
    static func cookie(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        guard text.contains("=") else { return try loadCookies(&invocation, text, name) }
        let value = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if let problem = UserHeaderField.problem(name: "Cookie", value: value) { throw UsageError(message: "option \(name): \(problem)") }
        if let given = invocation.options.headers.lastIndex(where: { $0.name.lowercased() == "cookie" }) {
            invocation.options.headers[given].value += "; " + value
        } else {
            invocation.options.headers.append((name: "Cookie", value: value))
        }
    }

    /// `--load-cookies FILE` (wget's, aria2's), `-b FILE`: read when the run starts.
    static func loadCookies(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
        invocation.cookieFiles.append(path)
    }

    /// `--save-cookies FILE` (wget's, aria2's; curl's `--cookie-jar`): written when the run ends.
    static func saveCookies(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
        invocation.cookieSavePath = path
    }

    /// `--referer URL`, `-e URL`: sent as `Referer` with every request, redirects and mirrors
    /// too, as curl sends it. wget's `-e COMMAND` (`-e robots=off`) is told apart by its value.
    static func referer(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        let key = text.prefix { $0.isLetter || $0 == "_" }
        if name == "-e", !key.isEmpty, text.dropFirst(key.count).first == "=" {
            throw UsageError(message: "-e is curl's --referer here; wget's -e COMMAND ('\(text)') has no equivalent")
        }
        if let problem = UserHeaderField.problem(name: "Referer", value: text) { throw UsageError(message: "option \(name): \(problem)") }
        invocation.options.headers.removeAll { $0.name.lowercased() == "referer" }
        invocation.options.headers.append((name: "Referer", value: text))
    }

    /// Gives the run its jar when a cookie file is read or written: the files' cookies, later
    /// files replacing earlier ones of the same name, domain and path.
    static func load(_ invocation: inout Invocation) throws(UsageError) {
        guard !invocation.cookieFiles.isEmpty || invocation.cookieSavePath != nil else { return }
        var cookies: [Cookie] = []
        for path in invocation.cookieFiles {
            cookies += Cookie.netscapeFile(try InputFile.contents(path).text)
        }
        invocation.options.cookieJar = CookieJar(cookies)
    }

    /// Writes the jar to `--save-cookies`' file when the run ends, however it ended (a failed
    /// download may have logged in); returns `status`, or the save's failure when the run
    /// had succeeded.
    static func save(_ invocation: Invocation, status: Int32) -> Int32 {
        guard let path = invocation.cookieSavePath, let jar = invocation.options.cookieJar else { return status }
        do {
            try jar.save(to: path)
        } catch {
            Console.error("cannot save the cookies: \(error.message)", hint: error.hint)
            return status == ExitStatus.success ? error.code.exitCode : status
        }
        return status
    }
}
