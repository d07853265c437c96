import COpenSSL
import Foundation

/// SHA-256 with libcrypto, for asserting downloaded bytes.
public enum SHA256 {
    public static func hex(_ data: some Collection<UInt8>) -> String {
        digest(data).map { String(format: "%02x", $0) }.joined()
    }

    public static func digest(_ data: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        return digest
    }

    /// The `Repr-Digest` field line a server announcing `data`'s SHA-256 sends.
    public static func reprDigestField(_ data: some Collection<UInt8>) -> String {
        "Repr-Digest: sha-256=:\(Data(digest(data)).base64EncodedString()):"
    }

    /// The digest of a file's contents; nil when it cannot be read.
    public static func hex(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return hex(data)
    }
}

/// Deterministic pseudo-random bytes (xorshift), so a test's data is reproducible.
public func testBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed | 1
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var index = 0
        while index < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var word = state
            for _ in 0..<min(8, count - index) {
                raw[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
    return bytes
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// A new directory named `prefix-XXXXXX` in `parent` (default: the temporary directory).
    public init(_ prefix: String = "fastget-test", in parent: String? = nil) throws {
        let template = ((parent ?? NSTemporaryDirectory()) as NSString).appendingPathComponent("\(prefix)-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw CocoaError(.fileWriteUnknown) }
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(path, 0o755)
    }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
