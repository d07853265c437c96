import COpenSSL
import Fastget
import Foundation
import Synchronization

/// HTTP Digest authentication (RFC 7616) in front of a test server's handler: a request
/// without a right `Authorization: Digest` gets a 401 with the challenge. The response is
/// checked by its own hashing code, not the client's. The first nonce may expire after some
/// uses, to make the client answer a `stale=true` challenge.
public final class DigestGuard: Sendable {
    public let user: String
    public let password: String
    public let realm: String
    /// "MD5" or "SHA-256" (nil: the challenge names none, as RFC 2069 servers do).
    public let algorithm: String?
    /// Also offer Basic in the challenge (a client must then not switch to Digest).
    public let offersBasic: Bool
    /// How many requests the first nonce authorizes before it is answered `stale=true` (0:
    /// never); its successor never expires, so that the renewal happens once, whatever the
    /// order of the client's concurrent requests.
    public let nonceUses: Int
    private let state = Locked<(nonce: Int, uses: Int, counts: [String])>((1, 0, []))

    public init(
        user: String = "Mufasa", password: String = "Circle of Life", realm: String = "fastget@test", algorithm: String? = "SHA-256",
        offersBasic: Bool = false, nonceUses: Int = 0
    ) {
        self.user = user
        self.password = password
        self.realm = realm
        self.algorithm = algorithm
        self.offersBasic = offersBasic
        self.nonceUses = nonceUses
    }

    /// The `nc` values of the requests it accepted, in order.
    public var acceptedCounts: [String] { state.withLock { $0.counts } }

    /// Nil when `request` is authorized; else the 401 to answer.
    public func check(_ request: RecordedRequest) -> TestResponse? {
        let authorization = request.header("Authorization").flatMap(DigestGuard.parameters)
        let (nonce, stale) = state.withLock { state -> (String, Bool) in
            let current = "nonce-\(state.nonce)"
            guard let fields = authorization, let right = expected(fields, method: request.method), fields["response"] == right
            else { return (current, false) }
            // The right credentials for another nonce: an expired one.
            if fields["nonce"] != current { return (current, true) }
            if nonceUses > 0 && state.nonce == 1 && state.uses >= nonceUses {
                state.nonce += 1
                state.uses = 0
                return ("nonce-\(state.nonce)", true)
            }
            state.uses += 1
            state.counts.append(fields["nc"] ?? "")
            return ("", false)
        }
        guard !nonce.isEmpty else { return nil }
        var challenge = "Digest realm=\"\(realm)\", qop=\"auth\", nonce=\"\(nonce)\", opaque=\"opaque-1\""
        if let algorithm { challenge += ", algorithm=\(algorithm)" }
        if stale { challenge += ", stale=true" }
        var fields = [(name: "WWW-Authenticate", value: challenge)]
        if offersBasic { fields.insert(("WWW-Authenticate", "Basic realm=\"\(realm)\""), at: 0) }
        return .status(401, body: "who?", fields: fields)
    }

    /// The `response` the client should have sent with `fields`; nil when the user or the
    /// hashing is wrong (a stale nonce with the right password still computes).
    private func expected(_ fields: [String: String], method: String) -> String? {
        guard fields["username"] == user, let uri = fields["uri"], let nonce = fields["nonce"], let nc = fields["nc"],
            let cnonce = fields["cnonce"], fields["qop"] == "auth", fields["opaque"] == "opaque-1"
        else { return nil }
        let ha1 = hash("\(user):\(realm):\(password)")
        let ha2 = hash("\(method):\(uri)")
        return hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
    }

    private func hash(_ text: String) -> String {
        let type = algorithm == "SHA-256" ? EVP_sha256() : EVP_md5()
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = Array(text.utf8).withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, type, nil) }
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }

    /// The parameters of an `Authorization: Digest …` value (quoted values unquoted).
    static func parameters(_ value: String) -> [String: String]? {
        guard value.hasPrefix("Digest ") else { return nil }
        var result: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"([a-z]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))"#)
        let text = String(value.dropFirst(7))
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text) else { continue }
            let quoted = Range(match.range(at: 2), in: text).map { String(text[$0]).replacingOccurrences(of: "\\", with: "") }
            result[String(text[name])] = quoted ?? Range(match.range(at: 3), in: text).map { String(text[$0]) }
        }
        return result
    }
}
