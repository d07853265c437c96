internal import COpenSSL

/// A TLS failure: why the handshake, the certificate check or a record failed.
package struct TLSError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// The peer's certificate was rejected (expired, unknown CA, wrong name, …).
        case verification
        /// The handshake failed for another reason (protocol version, alert, reset).
        case handshake
        /// The handshake did not finish by the connect deadline.
        case timedOut
        /// The trust store or a CA file could not be loaded.
        case configuration
        /// No trust store at all: neither `SSL_CERT_FILE`/`SSL_CERT_DIR` nor a system bundle.
        case noTrustStore
        /// A TLS record failed after the handshake.
        case transfer
        /// The connection closed without a close_notify where its end marks the end of the
        /// data (see `ByteStream.requireAnnouncedEnd`): the data may have been cut short.
        case truncated
    }

    package let kind: Kind
    package let reason: String

    package var description: String { reason }

    /// Drains OpenSSL's per-thread error queue into one line ("" when it is empty).
    static func queueText() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // "error:0A000086:SSL routines::certificate verify failed" → the reason after the last ':'.
            let reason = text.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? text
            parts.append(reason)
        }
        return parts.joined(separator: "; ")
    }
}
