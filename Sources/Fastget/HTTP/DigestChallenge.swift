/// An HTTP Digest challenge (RFC 7616) fastget can answer, and the `Authorization` value that
/// answers it. The hashes are libcrypto's (`Digest`).
package struct DigestChallenge: Sendable, Equatable {
    /// The algorithms of RFC 7616 §3.3 that fastget answers; `-sess` hashes the nonces into A1.
    package enum Algorithm: String, Sendable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"

        var hash: Digest.Algorithm { self == .md5 || self == .md5Session ? .md5 : .sha256 }
        var isSession: Bool { self == .md5Session || self == .sha256Session }
        /// Stronger first, when a server offers several challenges.
        var strength: Int { hash == .sha256 ? 1 : 0 }
    }

    package var realm: String
    package var nonce: String
    package var opaque: String?
    package var algorithm: Algorithm
    /// Whether the server named the algorithm (an RFC 2069 server names none, and then the
    /// answer names none either).
    package var namesAlgorithm: Bool
    /// The quality of protection chosen from those offered: `auth`, else `auth-int` (a GET's
    /// body is empty, so its hash is known), nil when the server offered none (RFC 2069).
    package var qop: String?
    /// The nonce expired but the credentials were right: answer the new one (RFC 7616 §3.3).
    package var stale: Bool

    /// The challenge in `challenge`, when it is Digest with a nonce, an algorithm fastget knows
    /// and, if any qop is offered, `auth` or `auth-int`.
    package init?(_ challenge: AuthChallenge) {
        guard challenge.scheme == "digest", let nonce = challenge.parameter("nonce") else { return nil }
        let named = challenge.parameter("algorithm")
        guard
            let algorithm = named.map({ name in Algorithm.allCases.first { $0.rawValue.lowercased() == name.lowercased() } })
                ?? .md5
        else { return nil }
        var qop: String?
        if let offered = challenge.parameter("qop") {
            let options = offered.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }
            guard let chosen = ["auth", "auth-int"].first(where: options.contains) else { return nil }
            qop = chosen
        }
        self.realm = challenge.parameter("realm") ?? ""
        self.nonce = nonce
        self.opaque = challenge.parameter("opaque")
        self.algorithm = algorithm
        self.namesAlgorithm = named != nil
        self.qop = qop
        self.stale = challenge.parameter("stale")?.lowercased() == "true"
    }

    /// The strongest Digest challenge among `challenges` that fastget can answer.
    package static func best(in challenges: [AuthChallenge]) -> DigestChallenge? {
        challenges.compactMap(DigestChallenge.init).max { $0.algorithm.strength < $1.algorithm.strength }
    }

    /// The `Authorization` value for `method` on `uri` (the request target), as the `count`-th
    /// use of this nonce (`nc`, from 1) with client nonce `cnonce`. Nil when libcrypto cannot
    /// hash (it always can for MD5 and SHA-256 on a working system).
    package func authorization(user: String, password: String, method: String, uri: String, count: Int, cnonce: String) -> String? {
        let nc = hex8(count)
        guard var ha1 = hash("\(user):\(realm):\(password)") else { return nil }
        if algorithm.isSession {
            guard let session = hash("\(ha1):\(nonce):\(cnonce)") else { return nil }
            ha1 = session
        }
        var a2 = "\(method):\(uri)"
        if qop == "auth-int" {
            guard let empty = hash("") else { return nil }
            a2 += ":\(empty)"
        }
        guard let ha2 = hash(a2) else { return nil }
        let response: String?
        if let qop {
            response = hash("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
        } else {
            response = hash("\(ha1):\(nonce):\(ha2)")
        }
        guard let response else { return nil }
        var parts = [
            "username=\(quoted(user))", "realm=\(quoted(realm))", "uri=\(quoted(uri))",
        ]
        if namesAlgorithm { parts.append("algorithm=\(algorithm.rawValue)") }
        parts.append("nonce=\(quoted(nonce))")
        if let qop { parts += ["nc=\(nc)", "cnonce=\(quoted(cnonce))", "qop=\(qop)"] }
        parts.append("response=\(quoted(response))")
        if let opaque { parts.append("opaque=\(quoted(opaque))") }
        return "Digest " + parts.joined(separator: ", ")
    }

    private func hash(_ text: String) -> String? {
        guard let digest = Digest(algorithm.hash) else { return nil }
        Array(text.utf8).withUnsafeBytes { digest.update($0) }
        return digest.finish()
    }

    /// A quoted string (RFC 9110 §5.6.4): `"` and `\` escaped. By bytes, not characters: a
    /// quote followed by a combining mark is one `Character`, yet its quote byte still ends
    /// the string on the wire.
    private func quoted(_ text: String) -> String {
        var result: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { result.append(UInt8(ascii: "\\")) }
            result.append(byte)
        }
        result.append(UInt8(ascii: "\""))
        return String(decoding: result, as: UTF8.self)
    }

    /// `nc`: eight lower-case hex digits.
    private func hex8(_ value: Int) -> String {
        let digits = String(UInt32(truncatingIfNeeded: value), radix: 16)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

extension DigestChallenge.Algorithm: CaseIterable {}
