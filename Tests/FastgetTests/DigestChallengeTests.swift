import Foundation
import Testing

@testable import Fastget

/// `WWW-Authenticate` challenges and HTTP Digest answers (RFC 7616), against the RFC's own
/// examples.
@Suite struct DigestChallengeTests {
    static let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    static let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    /// RFC 7616 §3.9.1: the two challenges of the example, as two field lines.
    static let example = [
        "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, nonce=\"\(nonce)\", opaque=\"\(opaque)\"",
        "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=MD5, nonce=\"\(nonce)\", opaque=\"\(opaque)\"",
    ]

    @Test(arguments: [
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
    ])
    func answersTheRFC7616Example(algorithm: String, response: String) throws {
        let challenges = AuthChallenge.parse(DigestChallengeTests.example)
        let challenge = try #require(challenges.compactMap(DigestChallenge.init).first { $0.algorithm.rawValue == algorithm })
        #expect(challenge.qop == "auth" && challenge.realm == "http-auth@example.org" && !challenge.stale)
        let value = challenge.authorization(
            user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", count: 1, cnonce: DigestChallengeTests.cnonce)
        #expect(
            value
                == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\", algorithm=\(algorithm), "
                + "nonce=\"\(DigestChallengeTests.nonce)\", nc=00000001, cnonce=\"\(DigestChallengeTests.cnonce)\", qop=auth, "
                + "response=\"\(response)\", opaque=\"\(DigestChallengeTests.opaque)\"")
    }

    @Test func prefersSHA256WhicheverComesFirst() throws {
        let best = try #require(DigestChallenge.best(in: AuthChallenge.parse(DigestChallengeTests.example.reversed())))
        #expect(best.algorithm == .sha256)
    }

    /// RFC 2617 §3.5: a challenge naming no algorithm is MD5, and the answer names none either.
    @Test func answersTheRFC2617Example() throws {
        let field =
            "Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""
        let challenge = try #require(DigestChallenge.best(in: AuthChallenge.parse([field])))
        let value = try #require(
            challenge.authorization(
                user: "Mufasa", password: "Circle Of Life", method: "GET", uri: "/dir/index.html", count: 1, cnonce: "0a4f113b"))
        #expect(value.contains("response=\"6629fae49393a05397450978507c4ef1\"") && !value.contains("algorithm"))
    }

    /// `-sess` and `auth-int` (a GET's empty body), counted in hex; expected value from an
    /// independent implementation of §3.4.1.
    @Test func answersASessionChallengeWithAuthInt() throws {
        let field = "Digest realm=\"http-auth@example.org\", qop=\"auth-int\", algorithm=SHA-256-sess, nonce=\"\(DigestChallengeTests.nonce)\""
        let challenge = try #require(DigestChallenge.best(in: AuthChallenge.parse([field])))
        let value = try #require(
            challenge.authorization(
                user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", count: 10, cnonce: DigestChallengeTests.cnonce))
        #expect(value.contains("nc=0000000a") && value.contains("qop=auth-int") && !value.contains("opaque"))
        #expect(value.contains("response=\"d0aa458cd0c9e006cc165bd0d437696cbfc4489f886ce2c265b6937531b75d05\""))
    }

    @Test func parsesSeveralChallengesInOneLine() {
        let challenges = AuthChallenge.parse([
            "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\", Negotiate abc==, Digest nonce=x , stale=TRUE"
        ])
        #expect(challenges.map(\.scheme) == ["newauth", "basic", "negotiate", "digest"])
        #expect(challenges[0].parameter("title") == "Login to \"apps\"" && challenges[0].parameter("type") == "1")
        #expect(challenges[2].parameters.isEmpty)
        #expect(DigestChallenge(challenges[3])?.stale == true)
    }

    @Test(arguments: [
        "Digest realm=\"r\"", // no nonce
        "Digest nonce=\"n\", algorithm=SHA-512-256", // an algorithm fastget does not speak
        "Digest nonce=\"n\", qop=\"auth-conf\"", // no qop it speaks
        "Basic realm=\"r\"", "", "=,\"", "Digest nonce=\"unterminated",
    ])
    func leavesOutChallengesItCannotAnswer(field: String) {
        #expect(DigestChallenge.best(in: AuthChallenge.parse([field])) == nil || field.hasSuffix("unterminated"))
    }

    @Test func quotesTheUserName() throws {
        let challenge = try #require(DigestChallenge.best(in: AuthChallenge.parse(["Digest nonce=n"])))
        let value = try #require(challenge.authorization(user: "a\"b\\c", password: "p", method: "GET", uri: "/", count: 1, cnonce: "c"))
        #expect(value.hasPrefix("Digest username=\"a\\\"b\\\\c\", realm=\"\", uri=\"/\", nonce=\"n\", response=\""))
    }

    /// A quote followed by a combining mark is one Character but still a quote byte: escaped.
    @Test func quotesAQuoteBeforeACombiningMark() throws {
        // Built from scalars: a quote and a combining mark side by side in a literal would be
        // one Character to the test's own macros too.
        let mark = String(Character(Unicode.Scalar(0x8E3)!))
        let realm = "a\"" + mark + "b"
        let field = "Digest nonce=n, realm=\"a\\\"" + mark + "b\""
        let challenge = try #require(DigestChallenge.best(in: AuthChallenge.parse([field])))
        let parsed = challenge.realm
        #expect(Array(parsed.utf8) == Array(realm.utf8))
        let value = try #require(challenge.authorization(user: "u", password: "p", method: "GET", uri: "/", count: 1, cnonce: "c"))
        let expected = Array(("realm=\"a\\\"" + mark + "b\"").utf8)
        #expect(value.utf8.firstRange(of: expected) != nil, "the quote is escaped")
        let readBack = AuthChallenge.parse([value]).first?.parameter("realm") ?? ""
        #expect(Array(readBack.utf8) == Array(realm.utf8))
    }

    /// Basic until a 401 offers Digest alone; then every request, from any thread, spends its
    /// own nonce count; a refused Digest answer is final, a stale one renews the nonce.
    @Test func credentialsCountEachUseOnceAcrossThreads() throws {
        let credentials = Credentials(origin: "http://h", user: "Mufasa", password: "Circle of Life", preemptive: true)
        let url = try HTTPURL("http://h/f")
        let basic = try #require(credentials.authorization("GET", url))
        #expect(basic.hasPrefix("Basic "))
        func unauthorized(_ challenge: String) throws -> ResponseHead {
            try ResponseHead(status: 401, reason: "", minorVersion: 1, fields: [.init(name: "www-authenticate", value: challenge)])
        }
        #expect(!credentials.learn(from: try unauthorized("Basic realm=r, Digest nonce=n1, qop=auth"), sent: basic))
        #expect(credentials.learn(from: try unauthorized("Digest nonce=n1, qop=auth"), sent: basic))
        let counts = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                let value = credentials.authorization("GET", url) ?? ""
                let nc = value.components(separatedBy: "nc=").last?.prefix(8) ?? ""
                counts.withLock { $0.append(String(nc)) }
            }
        }
        #expect(Set(counts.withLock { $0 }).count == 400)
        let digest = try #require(credentials.authorization("GET", url))
        #expect(digest.contains("nc=00000191"))
        #expect(!credentials.learn(from: try unauthorized("Digest nonce=n1, qop=auth"), sent: digest))
        #expect(credentials.learn(from: try unauthorized("Digest nonce=n2, qop=auth, stale=true"), sent: digest))
        #expect(credentials.authorization("GET", url)?.contains("nonce=\"n2\", nc=00000001") == true)
    }

    /// With `-sess`, the session key hashes the client nonce: every request under one
    /// challenge sends the same one (the count tells them apart); a new nonce gets a new one.
    @Test func oneClientNoncePerChallenge() throws {
        let credentials = Credentials(origin: "http://h", user: "u", password: "p", preemptive: false)
        let url = try HTTPURL("http://h/f")
        func cnonce(_ value: String?) -> Substring? { value?.components(separatedBy: "cnonce=\"").dropFirst().first?.prefix { $0 != "\"" } }
        let basic = credentials.authorization("GET", url)
        #expect(credentials.learn(from: try unauthorized("Digest nonce=n1, qop=auth, algorithm=MD5-sess"), sent: basic))
        let (first, second) = (try #require(credentials.authorization("GET", url)), try #require(credentials.authorization("GET", url)))
        #expect(cnonce(first) != nil && cnonce(first) == cnonce(second))
        #expect(first.contains("nc=00000001") && second.contains("nc=00000002"))
        #expect(credentials.learn(from: try unauthorized("Digest nonce=n2, qop=auth, algorithm=MD5-sess, stale=true"), sent: second))
        #expect(cnonce(credentials.authorization("GET", url)) != cnonce(first))
    }

    /// Over http nothing goes before a 401 names a scheme; then Digest when it is offered,
    /// even beside Basic, and Basic only when it alone is.
    @Test(arguments: [("Basic realm=r, Digest nonce=n1, qop=auth", "Digest "), ("Basic realm=r", "Basic "), ("Bearer", nil)])
    func overHTTPTheChallengeChoosesTheScheme(challenge: String, scheme: String?) throws {
        let credentials = Credentials(origin: "http://h", user: "u", password: "p", preemptive: false)
        let url = try HTTPURL("http://h/f")
        #expect(credentials.authorization("GET", url) == nil)
        #expect(credentials.learn(from: try unauthorized(challenge), sent: nil) == (scheme != nil))
        #expect(credentials.authorization("GET", url)?.prefix(scheme?.count ?? 0).description == scheme)
    }

    private func unauthorized(_ challenge: String) throws -> ResponseHead {
        try ResponseHead(status: 401, reason: "", minorVersion: 1, fields: [.init(name: "www-authenticate", value: challenge)])
    }
}
