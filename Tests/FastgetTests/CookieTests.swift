@testable import Fastget
import Testing

/// RFC 6265 in the jar: what a `Set-Cookie` stores, where a cookie goes, when it ends, and the
/// Netscape cookie file curl, wget and aria2 share.
@Suite struct CookieTests {
    static let now = 1_795_255_200 // Sat, 21 Nov 2026 10:00:00 GMT

    func url(_ text: String) throws -> HTTPURL { try HTTPURL(text) }

    func jar(_ fields: [String], from text: String) throws -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookie: fields, from: try url(text), now: CookieTests.now)
        return jar
    }

    @Test func aCookieWithoutDomainGoesToItsHostOnly() throws {
        let jar = try jar(["sid=abc; Path=/"], from: "http://login.example.com/auth")
        #expect(jar.header(for: try url("http://login.example.com/file.bin"), now: CookieTests.now) == "sid=abc")
        #expect(jar.header(for: try url("http://files.example.com/file.bin"), now: CookieTests.now) == nil)
        #expect(jar.header(for: try url("http://example.com/"), now: CookieTests.now) == nil)
        #expect(jar.header(for: try url("http://evil.com/"), now: CookieTests.now) == nil)
    }

    @Test func aDomainCookieGoesToTheDomainAndItsSubdomains() throws {
        let jar = try jar(["sid=abc; Domain=.Example.com; Path=/"], from: "http://login.example.com/auth")
        for target in ["http://example.com/a", "http://files.example.com/a", "https://a.b.example.com:8443/x"] {
            #expect(jar.header(for: try url(target), now: CookieTests.now) == "sid=abc", "\(target)")
        }
        for target in ["http://badexample.com/", "http://example.com.evil.org/", "http://com/"] {
            #expect(jar.header(for: try url(target), now: CookieTests.now) == nil, "\(target)")
        }
    }

    @Test(arguments: [
        ("a=1; Domain=com", "http://www.example.com/"), // a bare top-level domain
        ("a=1; Domain=other.org", "http://www.example.com/"), // another site
        ("a=1; Domain=ample.com", "http://www.example.com/"), // a suffix that is not a label
        ("a=1; Domain=0.0.1", "http://127.0.0.1/"), // an address has no domain
        ("a=1; Domain=example.com", "http://127.0.0.1/"),
        ("a=1; Secure", "http://www.example.com/"), // Secure from a plain answer
        ("novalue", "http://www.example.com/"),
        ("=1", "http://www.example.com/"),
        ("a=1\u{1}", "http://www.example.com/"),
        ("a=b\tc", "http://www.example.com/"),
        ("a=1; Domain=co.uk", "http://www.example.co.uk/"), // public suffixes: every site under them
        ("a=1; Domain=.github.io", "https://me.github.io/"),
        ("a=1; Domain=s3.amazonaws.com", "http://bucket.s3.amazonaws.com/"),
    ])
    func refusesWhatRFC6265Ignores(field: String, from source: String) throws {
        #expect(Cookie(setCookie: field, from: try url(source), now: CookieTests.now) == nil)
    }

    @Test func aPublicSuffixHostKeepsItsCookieForItself() throws {
        let jar = try jar(["a=1; Domain=github.io", "b=2; Domain=example.github.io"], from: "https://example.github.io/x")
        #expect(jar.cookies.map(\.name) == ["b"])
        let own = try self.jar(["a=1; Domain=github.io"], from: "https://github.io/x")
        #expect(own.cookies.first?.hostOnly == true)
        #expect(own.header(for: try url("https://evil.github.io/"), now: CookieTests.now) == nil)
    }

    @Test func anAddressKeepsItsCookieForItself() throws {
        let jar = try jar(["a=1; Domain=127.0.0.1"], from: "http://127.0.0.1:8080/x")
        #expect(jar.header(for: try url("http://127.0.0.1:9/y"), now: CookieTests.now) == "a=1")
        #expect(jar.cookies.first?.hostOnly == true)
    }

    @Test func pathsMatchWholeSegmentsAndTheLongestComesFirst() throws {
        let jar = try jar(["a=1; Path=/docs", "b=2; Path=/", "c=3"], from: "http://h.example/docs/guide/page")
        #expect(jar.header(for: try url("http://h.example/docs/guide/x"), now: CookieTests.now) == "c=3; a=1; b=2")
        #expect(jar.header(for: try url("http://h.example/docs"), now: CookieTests.now) == "a=1; b=2")
        #expect(jar.header(for: try url("http://h.example/docsx"), now: CookieTests.now) == "b=2")
        #expect(jar.cookies.first { $0.name == "c" }?.path == "/docs/guide", "the default path is the request's directory")
    }

    @Test func aSecureCookieGoesOverHTTPSOnly() throws {
        let jar = try jar(["s=1; Secure"], from: "https://h.example/")
        #expect(jar.header(for: try url("https://h.example/"), now: CookieTests.now) == "s=1")
        #expect(jar.header(for: try url("http://h.example/"), now: CookieTests.now) == nil)
    }

    @Test func aPlainAnswerCannotReplaceOrShadowASecureCookie() throws {
        let real = Cookie(name: "sid", value: "REAL", domain: "127.0.0.1", secure: true, httpOnly: true)
        let jar = CookieJar([real])
        let plain = try url("http://127.0.0.1:8080/login")
        jar.store(setCookie: ["sid=attacker; Path=/", "sid=x; Path=/deeper", "sid=gone; Max-Age=0; Path=/"], from: plain, now: CookieTests.now)
        #expect(jar.cookies == [real])
        #expect(jar.header(for: try url("https://127.0.0.1:8443/file"), now: CookieTests.now) == "sid=REAL")
        // Another name, or the same name from https, is stored as usual.
        jar.store(setCookie: ["other=1"], from: plain, now: CookieTests.now)
        jar.store(setCookie: ["sid=new; Secure; Path=/"], from: try url("https://127.0.0.1/"), now: CookieTests.now)
        #expect(jar.header(for: try url("https://127.0.0.1/a"), now: CookieTests.now) == "other=1; sid=new")
        let domainJar = CookieJar([Cookie(name: "s", value: "1", domain: "example.com", hostOnly: false, secure: true)])
        domainJar.store(setCookie: ["s=2; Domain=example.com", "s=3"], from: try url("http://www.example.com/"), now: CookieTests.now)
        #expect(domainJar.cookies.map(\.value) == ["1"])
    }

    @Test func expiryComesFromMaxAgeBeforeExpires() throws {
        let jar = try jar(
            ["a=1; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT", "b=2; Expires=Sun, 22-Nov-26 10:00:00 GMT", "c=3; Expires=junk"],
            from: "http://h.example/")
        let byName = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0.expires) })
        #expect(byName["a"] == CookieTests.now + 60)
        #expect(byName["b"] == CookieTests.now + 86_400)
        #expect(byName["c"] == .some(nil), "an unreadable date leaves a session cookie")
        #expect(jar.header(for: try url("http://h.example/"), now: CookieTests.now + 61) == "b=2; c=3")
    }

    @Test func anExpiredCookieRemovesTheOneItReplaces() throws {
        let jar = try jar(["a=1", "b=2"], from: "http://h.example/")
        jar.store(setCookie: ["a=gone; Max-Age=0", "b=3"], from: try url("http://h.example/"), now: CookieTests.now)
        #expect(jar.header(for: try url("http://h.example/"), now: CookieTests.now) == "b=3")
        jar.store(setCookie: ["b=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: try url("http://h.example/"), now: CookieTests.now)
        #expect(jar.cookies.isEmpty)
    }

    @Test(arguments: [
        ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894), ("Wednesday, 09-Jun-21 10:18:14 GMT", 1_623_233_894),
        ("Wed Jun  9 10:18:14 2021", 1_623_233_894), ("9 jun 2021 10:18:14", 1_623_233_894),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400),
    ])
    func readsTheDatesServersWrite(text: String, seconds: Int) {
        #expect(CookieDate.seconds(text) == seconds)
    }

    @Test(arguments: ["", "Wed, 31 Feb 2021 10:18:14 GMT", "Wed, 09 Jun 1600 10:18:14 GMT", "09 Jun 2021", "Wed, 09 Jun 2021 24:00:00"])
    func anythingElseIsNoCookieDate(text: String) {
        #expect(CookieDate.seconds(text) == nil)
    }

    @Test func readsACurlCookieFileAndWritesItBack() {
        let file = """
            # Netscape HTTP Cookie File\r
            .example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\r
            #HttpOnly_files.example.com\tFALSE\t/dl\tTRUE\t1900000000\ttoken\tt=1\r
            # a comment
            h.example\tFALSE\t/\tFALSE\t0\tempty
            broken line
            h.example\tFALSE\t/\tFALSE\tsoon\ta\tb

            """
        let cookies = Cookie.netscapeFile(file)
        #expect(Cookie.readNetscapeFile(file).skipped == 2, "the two lines that are neither cookie nor comment")
        #expect(
            cookies == [
                Cookie(name: "sid", value: "abc", domain: "example.com", hostOnly: false),
                Cookie(
                    name: "token", value: "t=1", domain: "files.example.com", path: "/dl", secure: true, httpOnly: true,
                    expires: 1_900_000_000),
                Cookie(name: "empty", value: "", domain: "h.example"),
            ])
        #expect(Cookie.netscapeFile(Cookie.netscapeText(cookies)) == cookies)
    }

    @Test func aCombiningMarkAfterADotLeavesTheDotADot() {
        // "." followed by U+065A is one Character, and not "."; the bytes decide.
        #expect(Cookie.canonical(".\u{65A}x.example") == "\u{65A}x.example")
        let cookies = Cookie.netscapeFile(".\u{65A}x.example\tTRUE\t/\tFALSE\t0\ta\tb\n")
        #expect(cookies.map(\.domain) == ["\u{65A}x.example"] && cookies.first?.hostOnly == false)
        #expect(Cookie.netscapeFile(Cookie.netscapeText(cookies)) == cookies)
    }

    @Test func savesOnlyWhatHasNotExpired() {
        let jar = CookieJar()
        jar.store(Cookie(name: "a", value: "1", domain: "h.example", expires: CookieTests.now + 100), now: CookieTests.now)
        jar.store(Cookie(name: "b", value: "2", domain: "h.example", expires: CookieTests.now + 10), now: CookieTests.now)
        #expect(Cookie.netscapeFile(jar.netscapeText(now: CookieTests.now + 50)).map(\.name) == ["a"])
    }

    @Test func aServerFillsOnlyItsOwnDomainAndNeverPushesOutWhatWasGiven() throws {
        let bank = Cookie(name: "session", value: "bank", domain: "bank.example")
        let given = Cookie(name: "f", value: "file", domain: "h.example")
        let jar = CookieJar([bank, given])
        jar.store(setCookie: (0..<60).map { "c\($0)=1" }, from: try url("http://h.example/"), now: CookieTests.now)
        let names = jar.cookies.map(\.name)
        #expect(names.count == 2 + CookieJar.domainCapacity)
        #expect(names.prefix(3) == ["session", "f", "c10"], "the domain's cookies set longest ago went")
        #expect(jar.header(for: try url("http://bank.example/"), now: CookieTests.now) == "session=bank")
    }

    @Test func aFullJarRefusesAServersCookieAndCountsTheFilesLeftOut() throws {
        let jar = CookieJar()
        let file = (0..<3500).map { Cookie(name: "c", value: "1", domain: "h\($0).example") }
        #expect(jar.load(file, now: CookieTests.now) == 500)
        jar.store(setCookie: ["new=1"], from: try url("http://other.example/"), now: CookieTests.now)
        #expect(jar.cookies == Array(file.prefix(CookieJar.capacity)))
    }

    @Test func loadingAHugeFileTakesLinearTime() throws {
        // 200,000 cookies: a quadratic store takes minutes here.
        let file = (0..<200_000).map { Cookie(name: "c\($0 % 7)", value: "v", domain: "h\($0).example") }
        let clock = ContinuousClock()
        let elapsed = clock.measure { _ = CookieJar().load(file, now: CookieTests.now) }
        #expect(elapsed < .seconds(20), "\(elapsed)")
    }

    @Test func longAttributesAreIgnoredAndTheJarStaysWithinAFilesLimit() throws {
        let long = String(repeating: "x", count: 1025)
        let jar = try jar(["a=1; Path=/\(long); Domain=\(long).example.com"], from: "http://www.example.com/dir/f")
        #expect(jar.cookies.map(\.path) == ["/dir"] && jar.cookies.first?.hostOnly == true)
        let big = (0..<400).map { Cookie(name: "n", value: String(repeating: "v", count: 4000), domain: "h\($0).example", path: "/" + long) }
        let full = CookieJar()
        #expect(full.load(big, now: CookieTests.now) > 0)
        #expect(full.netscapeText(now: CookieTests.now).utf8.count <= 1 << 20)
    }

    @Test func theCookieFieldLeavesOutTheLeastSpecificBeyond8KiB() throws {
        let value = String(repeating: "v", count: 3000)
        let jar = try jar(["a=\(value); Path=/", "b=\(value); Path=/d", "c=\(value); Path=/d/e"], from: "http://h.example/d/e/f")
        let field = try #require(jar.header(for: try url("http://h.example/d/e/f"), now: CookieTests.now))
        #expect(field.utf8.count <= CookieJar.headerCapacity)
        #expect(field == "c=\(value); b=\(value)")
    }
}
