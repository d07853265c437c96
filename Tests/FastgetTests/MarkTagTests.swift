import Testing

@testable import Fastget

/// The marks' tag is the first 128 bits of the text's SHA-256 in base64url without padding,
/// as `base64.urlsafe_b64encode(hashlib.sha256(text).digest()[:16]).rstrip(b"=")` gives it,
/// and the SHA-256 is FIPS 180-4's (its examples, and lengths around a block's padding, against
/// Python's `hashlib`).
@Suite struct MarkTagTests {
    @Test(arguments: [
        ("abc", "ungWv48Bz-pBQUDeXa4iIw"), ("http://127.0.0.1:8080/file.bin", "0goaqqvGVOyYI1h3prJt3A"),
        ("", "47DEQpj8HBSa-_TImW-5JA"),
    ])
    func aTagIsTheDigestsFirst128Bits(text: String, tag: String) {
        #expect(SidecarFiles.tag(text) == tag)
    }

    /// Every tag is the standard base64 of the digest's first 16 bytes with "-" and "_" for
    /// "+" and "/" and no padding: 2,000 texts of every length from 0 to 199 bytes.
    @Test func aTagIsTheDigestInBase64URL() {
        for index in 0..<2000 {
            let text = String(decoding: (0..<(index % 200)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) & 0x7f }, as: UTF8.self)
            let standard = base64Encoded(SmallSHA256.digest(text.utf8).prefix(16))
            let expected = String(standard.dropLast(2).map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
            #expect(SidecarFiles.tag(text) == expected, "text \(index)")
        }
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func theDigestIsSHA256(text: String, hex: String) {
        let digits: [String] = SmallSHA256.digest(text.utf8).map { byte in
            let digit = String(byte, radix: 16)
            return digit.count == 1 ? "0" + digit : digit
        }
        #expect(digits.joined() == hex)
    }

    /// Every length from 0 to 300 bytes (one to six blocks, each padding case), of bytes that
    /// are not all alike, against libcrypto's SHA-256.
    @Test func theDigestMatchesLibcryptoAtEveryShortLength() throws {
        for length in 0...300 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ length) }
            let reference = try #require(Digest(.sha256))
            bytes.withUnsafeBytes { reference.update($0) }
            let ours = SmallSHA256.digest(bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            #expect(ours == reference.finish(), "length \(length)")
        }
    }
}
