internal import COpenSSL

/// A message digest computed by libcrypto (EVP): SHA-256, SHA-512, SHA-1 or MD5.
package final class Digest {
    /// The algorithms libcrypto computes for fastget.
    package enum Algorithm: Sendable {
        case sha256, sha512, sha1, md5
    }

    private let context: OpaquePointer

    /// Nil when libcrypto cannot set the algorithm up.
    package init?(_ algorithm: Algorithm) {
        guard let context = EVP_MD_CTX_new() else { return nil }
        let type: OpaquePointer? =
            switch algorithm {
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            case .sha1: EVP_sha1()
            case .md5: EVP_md5()
            }
        guard EVP_DigestInit_ex(context, type, nil) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest in lower-case hex.
    package func finish() -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in output.prefix(Int(length)) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
