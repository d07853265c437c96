@testable import Fastget
import Foundation
import Testing

/// Base64 as digest fields carry it, and which digest of a server's fields is checked.
@Suite struct AnnouncedDigestTests {
    @Test(arguments: [
        ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"), ("Zg", "f"), ("Zm8", "fo"),
    ])
    func decodesTheRFC4648Vectors(encoded: String, decoded: String) {
        #expect(Base64.decode(Substring(encoded)) == Array(decoded.utf8))
    }

    @Test(arguments: ["Z", "Zg=a", "Zh==", "Zm9=", "Zg===", "Z m9v", "Zm9v!", "====", "Zm9vY"])
    func refusesWhatNoEncodingGives(text: String) {
        #expect(Base64.decode(Substring(text)) == nil, "\(text)")
    }

    let sha256 = SHA256Vector.empty
    let md5 = (hex: "d41d8cd98f00b204e9800998ecf8427e", base64: "1B2M2Y8AsgTpgAmY7PhCfg==")
    let sha1 = (hex: "da39a3ee5e6b4b0d3255bfef95601890afd80709", base64: "2jmj7l5rSw0yVb/vlWAYkK/YBwk=")

    @Test func reprDigestBeforeDigestAndTheStrongestAlgorithm() throws {
        let repr = try #require(Checksum.announced(reprDigest: ["md5=:\(md5.base64):, sha-256=:\(sha256.base64):;x=1"], digest: []))
        #expect(repr.checksum == (try Checksum("sha-256=\(sha256.hex)")))
        #expect(repr.field == "Repr-Digest")
        let both = try #require(Checksum.announced(reprDigest: ["md5=:\(md5.base64):"], digest: ["SHA-256=\(sha256.base64)"]))
        #expect(both.checksum.algorithm == .md5 && both.field == "Repr-Digest", "a Repr-Digest wins over Digest")
        let digest = try #require(Checksum.announced(reprDigest: [], digest: ["MD5=\(md5.base64), SHA=\(sha1.base64)"]))
        #expect(digest.checksum == (try Checksum("sha-1=\(sha1.hex)")))
        #expect(digest.field == "Digest")
    }

    @Test func skipsWhatCannotBeChecked() {
        // Unknown algorithms, wrong lengths, bad base64, a Digest value in Repr-Digest's place,
        // Content-Digest-like garbage: nothing is announced.
        #expect(Checksum.announced(reprDigest: ["crc32c=:AAAAAA==:"], digest: ["UNIXsum=30637"]) == nil)
        #expect(Checksum.announced(reprDigest: ["sha-256=:\(md5.base64):"], digest: []) == nil)
        #expect(Checksum.announced(reprDigest: ["sha-256=\(sha256.base64)"], digest: []) == nil)
        #expect(Checksum.announced(reprDigest: ["sha-256=:not base64!:"], digest: ["SHA-256"]) == nil)
        let fallback = Checksum.announced(reprDigest: ["sha-256=:\(md5.base64):"], digest: ["md5=\(md5.base64)"])
        #expect(fallback?.checksum.algorithm == .md5 && fallback?.field == "Digest", "a broken Repr-Digest falls back to Digest")
    }
}

/// SHA-256 of the empty string.
enum SHA256Vector {
    static let empty = (
        hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        base64: "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
    )
}
