import Fastget
import Glibc

/// `-b`, `--load-cookies`, `--save-cookies` and `-e`: cookies as curl, wget and aria2 take
/// them, and the `Referer` curl's `-e` sends. The cookies live in one `CookieJar` that every
/// download of the run shares; the library stores each `Set-Cookie` in it and sends what
/// matches (RFC 6265), never to another site.
enum CookieOptions {
    /// `-b DATA`: curl's rule decides by the value: with a `=` it is the cookies themselves
    /// (`name=value; n2=v2`, sent to the URL's own origin only, like `-H 'Cookie: …'`);
    /// without one it names a Netscape cookie file, read as `--load-cookies` does.
    /// An empty one turns cookies on with an empty jar, and a file that does not exist yet is
    /// an empty jar too (curl's `-b jar -c jar` on a first run).
    static func cookie(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        invocation.cookiesGiven = true
        guard !text.isEmpty else { return }
        guard text.contains("=") else { return invocation.cookieFiles.append((text, optional: true)) }
        let value = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if let given = invocation.options.headerFields.lastIndex(where: { $0.name.lowercased() == "cookie" }) {
            let earlier = invocation.options.headerFields[given].value
            invocation.options.headerFields[given] = try OptionValue.headerField("Cookie", earlier + "; " + value, name)
        } else {
            invocation.options.headerFields.append(try OptionValue.headerField("Cookie", value, name))
        }
    }

    /// `--load-cookies FILE` (wget's, aria2's), `-b FILE`: read when the run starts.
    static func loadCookies(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
        invocation.cookiesGiven = true
        invocation.cookieFiles.append((path, optional: false))
    }

    /// `--save-cookies FILE` (wget's, aria2's; curl's `--cookie-jar`): written when the run ends.
    static func saveCookies(_ invocation: inout Invocation, _ path: String, _ name: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError(message: "option \(name) needs a file name") }
        invocation.cookiesGiven = true
        invocation.cookieSavePath = path
    }

    /// `--referer URL`, `-e URL`: sent as `Referer` with every request, redirects and mirrors
    /// too, as curl sends it. wget's `-e COMMAND` (`-e robots=off`) is told apart by its value.
    static func referer(_ invocation: inout Invocation, _ text: String, _ name: String) throws(UsageError) {
        let key = text.prefix { $0.isLetter || $0 == "_" }
        if name == "-e", !key.isEmpty, text.dropFirst(key.count).first == "=" {
            throw UsageError(message: "-e is curl's --referer here; wget's -e COMMAND ('\(text)') has no equivalent")
        }
        let field = try OptionValue.headerField("Referer", text, name)
        invocation.options.headerFields.removeAll { $0.name.lowercased() == "referer" }
        invocation.options.headerFields.append(field)
    }

    /// Gives the run its jar when a cookie option was given: the files' cookies, later files
    /// replacing earlier ones of the same name, domain and path. Returns the files that lost
    /// something (a line that is no cookie, a cookie beyond the jar's capacity): saving over
    /// one of them would delete it.
    static func load(_ invocation: inout Invocation) throws(UsageError) -> Set<String> {
        guard invocation.cookiesGiven else { return [] }
        try refuseCurlsDashC(invocation)
        let jar = CookieJar()
        var lossy: Set<String> = []
        for (path, optional) in invocation.cookieFiles {
            if optional && access(path, F_OK) != 0 && errno == ENOENT {
                if !invocation.quiet { Console.write("fastget: no cookie file \(path) yet: starting with no cookies\n") }
                continue
            }
            let (cookies, skipped) = Cookie.readNetscapeFile(try InputFile.contents(path).text)
            let refused = jar.load(cookies)
            if refused > 0 {
                Console.write("fastget: warning: \(path): \(refused) cookie\(refused == 1 ? "" : "s") beyond the jar's capacity left out\n")
            }
            if refused > 0 || skipped > 0 { lossy.insert(path) }
        }
        invocation.options.cookieJar = jar
        return lossy
    }

    /// curl's `-b F -c F URL`: fastget's `-c` is `--continue`, so `F` became the URL and the
    /// real one a mirror. A first "URL" without a scheme that is a local file says so.
    private static func refuseCurlsDashC(_ invocation: Invocation) throws(UsageError) {
        guard let url = invocation.url, SharedLetter.schemeEnd(url) == nil, access(url, F_OK) == 0 else { return }
        throw UsageError(message: "\(url) is a local file, not a URL: -c is --continue here; curl's -c FILE is --save-cookies FILE")
    }

    /// Checks `--save-cookies`' path before anything is downloaded; prints the problem and
    /// returns the exit status when it cannot be written, or would lose what `lossy` files
    /// held. `-` is standard output, unless the download or its report goes there.
    static func checkSavePath(_ invocation: Invocation, lossy: Set<String>) -> Int32? {
        guard let path = invocation.cookieSavePath else { return nil }
        if path == "-" {
            guard invocation.options.outputDescriptor != nil || invocation.json || invocation.writeOut != nil else { return nil }
            Console.error("--save-cookies - and the download's output both want standard output", hint: "save the cookies to a file")
            return ExitStatus.of(.usage)
        }
        let cannotCreate = ExitStatus.of(.cannotCreateOutput)
        if lossy.contains(path) {
            Console.error(
                "\(path) holds lines or cookies that were not read: saving would delete them",
                hint: "save to another file with --save-cookies FILE")
            return cannotCreate
        }
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
            Console.error("cannot save the cookies to \(path): it is a directory")
            return cannotCreate
        }
        let parent = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        if stat(parent.isEmpty ? "/" : parent, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
            Console.error("cannot save the cookies to \(path): no directory \(parent.isEmpty ? "/" : parent)")
            return cannotCreate
        }
        return nil
    }

    /// Writes the jar to `--save-cookies`' file when the run ends, however it ended (a failed
    /// download may have logged in); returns `status`, or the save's failure when the run
    /// had succeeded.
    static func save(_ invocation: Invocation, status: Int32) -> Int32 {
        guard let path = invocation.cookieSavePath, let jar = invocation.options.cookieJar else { return status }
        if path == "-" {
            Console.write(jar.netscapeText(), to: 1)
            return status
        }
        do {
            try jar.save(to: path)
        } catch {
            Console.error("cannot save the cookies: \(error.message)", hint: error.commandLineHint)
            return status == ExitStatus.success ? ExitStatus.of(error.code) : status
        }
        return status
    }
}
