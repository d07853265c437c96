import Testing

@testable import Fastget

/// The marks' tag is the first 128 bits of the text's SHA-256 in base64url without padding,
/// as `base64.urlsafe_b64encode(hashlib.sha256(text).digest()[:16]).rstrip(b"=")` gives it.
@Suite struct MarkTagTests {
    @Test(arguments: [
        ("abc", "ungWv48Bz-pBQUDeXa4iIw"), ("http://127.0.0.1:8080/file.bin", "0goaqqvGVOyYI1h3prJt3A"),
        ("", "47DEQpj8HBSa-_TImW-5JA"),
    ])
    func aTagIsTheDigestsFirst128Bits(text: String, tag: String) {
        #expect(SidecarFiles.tag(text) == tag)
    }
}
