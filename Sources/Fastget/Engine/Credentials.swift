/// The user's credentials for one origin (from the URL, `-u` or netrc) and how they are sent.
/// Over https, HTTP Basic goes with the first request, as curl does. Over http, where Basic
/// would be readable on the way, nothing goes until a 401 names a scheme (wget waits too):
/// HTTP Digest (RFC 7616) when it is offered, Basic only when it alone is. Basic refused over
/// https turns to Digest when the 401 offers only Digest. Every request of the download (the probe, each segment's
/// connection) then answers the one challenge with the next nonce count, so that no request
/// after the first pays another 401; a `stale=true` 401 brings a new nonce.
final class Credentials: Sendable {
    /// The origin they were given for: no other gets them.
    let origin: String
    let user: String
    let password: String
    private let basic: String
    /// The challenge being answered, how many requests have used its nonce so far, and the
    /// client nonce chosen for it. One client nonce per challenge: with a `-sess` algorithm
    /// the session key hashes the first one (RFC 7616 §3.4.2), and a server that keeps the
    /// key refuses later requests that hash another; the count tells the requests apart.
    private let digest = Locked<(challenge: DigestChallenge, count: Int, cnonce: String)?>(nil)

    /// Whether Basic goes with requests before any 401 asks (https), or once a 401 chose it.
    private let sendsBasic: Locked<Bool>

    init(origin: String, user: String, password: String?, preemptive: Bool) {
        sendsBasic = Locked(preemptive)
        self.origin = origin
        self.user = user
        self.password = password ?? ""
        basic = basicAuthorization(user: user, password: password)
    }

    private let refusal = Locked(false)

    /// Whether a 401 answered a request that carried them (after any Digest answer).
    var refused: Bool { refusal.withLock { $0 } }

    func markRefused() { refusal.withLock { $0 = true } }

    /// Whether requests answer a Digest challenge.
    var usesDigest: Bool { digest.withLock { $0 != nil } }

    /// The `Authorization` value for `method` on `url`, nil while no 401 has chosen a scheme
    /// over http; each Digest value spends one nonce count. The count is taken when the
    /// request is built, so requests on several connections may reach the server out of
    /// count order. RFC 7616 §3.4 asks only that a count not repeat; a server that insisted on
    /// order could refuse a late request (not seen with the servers tested).
    func authorization(_ method: String, _ url: HTTPURL) -> String? {
        let basic = sendsBasic.withLock { $0 } ? self.basic : nil
        let next = digest.withLock { state -> (DigestChallenge, Int, String)? in
            guard state != nil else { return nil }
            state!.count += 1
            return (state!.challenge, state!.count, state!.cnonce)
        }
        guard let (challenge, count, cnonce) = next else { return basic }
        return challenge.authorization(user: user, password: password, method: method, uri: url.target, count: count, cnonce: cnonce)
            ?? basic
    }

    /// What a 401 to a request that carried `sent` (nil: none yet) teaches: true when the
    /// request is worth sending again with a new `authorization` — none was sent and the
    /// server offers Digest (preferred) or Basic; Basic was refused and the server offers
    /// Digest alone; or a Digest nonce went stale. False when the credentials themselves were
    /// refused, or nothing offered can be answered: the 401 is the answer.
    func learn(from head: ResponseHead, sent: String?) -> Bool {
        let challenges = AuthChallenge.parse(head.values("www-authenticate"))
        let basicOffered = challenges.contains { $0.scheme == "basic" }
        guard let offered = DigestChallenge.best(in: challenges) else {
            guard sent == nil, basicOffered else { return false }
            sendsBasic.withLock { $0 = true }
            return true
        }
        return digest.withLock { state in
            if let sent, sent.hasPrefix("Basic ") {
                // A server that offers Basic too refused these credentials as Basic.
                guard !basicOffered else { return false }
            } else if sent != nil && !offered.stale {
                return false
            }
            // Another request may have renewed the nonce meanwhile: its count goes on.
            if state?.challenge.nonce != offered.nonce {
                state = (offered, 0, String(UInt64.random(in: .min ... .max), radix: 16))
            }
            return true
        }
    }
}
