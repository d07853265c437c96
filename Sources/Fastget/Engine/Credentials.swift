/// The user's credentials for one origin (from the URL, `-u` or netrc) and how they are sent:
/// HTTP Basic first, sent with the first request as curl and wget do; HTTP Digest (RFC 7616)
/// once a 401 offers only Digest. Every request of the download (the probe, each segment's
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

    init(origin: String, user: String, password: String?) {
        self.origin = origin
        self.user = user
        self.password = password ?? ""
        basic = basicAuthorization(user: user, password: password)
    }

    private let refusal = Locked(false)

    /// Whether a 401 answered a request that carried them (after any Digest answer).
    var refused: Bool { refusal.withLock { $0 } }

    func markRefused() { refusal.withLock { $0 = true } }

    /// Whether requests answer a Digest challenge (Basic until a 401 asks for Digest).
    var usesDigest: Bool { digest.withLock { $0 != nil } }

    /// The `Authorization` value for `method` on `url`; each call spends one nonce count.
    func authorization(_ method: String, _ url: HTTPURL) -> String {
        let next = digest.withLock { state -> (DigestChallenge, Int, String)? in
            guard state != nil else { return nil }
            state!.count += 1
            return (state!.challenge, state!.count, state!.cnonce)
        }
        guard let (challenge, count, cnonce) = next else { return basic }
        return challenge.authorization(user: user, password: password, method: method, uri: url.target, count: count, cnonce: cnonce)
            ?? basic
    }

    /// What a 401 to a request that carried `sent` teaches: true when the request is worth
    /// sending again with a new `authorization` — the server offers Digest and not Basic
    /// (Basic was refused, or never offered), or it says a Digest nonce went stale. False when
    /// the credentials themselves were refused: the 401 is the answer.
    func learn(from head: ResponseHead, sent: String) -> Bool {
        let challenges = AuthChallenge.parse(head.values("www-authenticate"))
        guard let offered = DigestChallenge.best(in: challenges) else { return false }
        return digest.withLock { state in
            if sent.hasPrefix("Basic ") {
                // A server that offers Basic too refused these credentials as Basic.
                guard !challenges.contains(where: { $0.scheme == "basic" }) else { return false }
            } else if !offered.stale {
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
