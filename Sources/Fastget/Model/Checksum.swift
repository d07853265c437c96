/// The digest a downloaded file must have, checked after the last byte and before the final
/// rename: a file that does not match stays as `NAME.part` and the download fails (exit 76).
public struct Checksum: Sendable, Equatable, CustomStringConvertible {
    /// The digest algorithms fastget can check.
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha256 = "sha-256"
        case sha512 = "sha-512"
        case sha1 = "sha-1"
        case md5

        /// The same algorithm as libcrypto computes it.
        var digest: Digest.Algorithm {
            switch self {
            case .sha256: .sha256
            case .sha512: .sha512
            case .sha1: .sha1
            case .md5: .md5
            }
        }

        /// Hex digits of a digest.
        var hexLength: Int {
            switch self {
            case .sha256: 64
            case .sha512: 128
            case .sha1: 40
            case .md5: 32
            }
        }
    }

    /// The algorithm.
    public let algorithm: Algorithm
    /// The expected digest, lower-case hex.
    public let hex: String

    /// Parses `ALGORITHM=HEX`, e.g. `sha-256=9f86d0…` (also `sha256`, `sha1`, upper-case hex).
    /// - Throws: `.usage` for an unknown algorithm or a digest of the wrong length.
    public init(_ text: String) throws(FastgetError) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else {
            throw FastgetError(.usage, "checksum '\(text)' is not ALGORITHM=HEX (e.g. sha-256=…)")
        }
        let name = parts[0].lowercased()
        guard let algorithm = Algorithm.allCases.first(where: { $0.rawValue == name || String($0.rawValue.filter { $0 != "-" }) == name }) else {
            throw FastgetError(.usage, "unknown checksum algorithm '\(parts[0])' (sha-256, sha-512, sha-1 or md5)")
        }
        try self.init(algorithm, hex: String(parts[1]))
    }

    /// The digest `hex` (upper- or lower-case) of `algorithm`, e.g. `Checksum(.sha256, hex: "9f86d0…")`.
    /// - Throws: `.usage` for a digest of the wrong length or with other characters.
    public init(_ algorithm: Algorithm, hex: String) throws(FastgetError) {
        let digits = hex.lowercased()
        guard digits.utf8.count == algorithm.hexLength, digits.utf8.allSatisfy({ hexValue($0) != nil }) else {
            throw FastgetError(.usage, "a \(algorithm.rawValue) digest is \(algorithm.hexLength) hex digits, not '\(hex)'")
        }
        self.algorithm = algorithm
        self.hex = digits
    }

    /// A digest given as its bytes (as a hash function returns it, or a header's base64
    /// decoded); nil when their count is not the algorithm's.
    public init?(_ algorithm: Algorithm, bytes: [UInt8]) {
        guard bytes.count * 2 == algorithm.hexLength else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for byte in bytes { hex += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        self.algorithm = algorithm
        self.hex = String(decoding: hex, as: UTF8.self)
    }

    /// `sha-256=…`.
    public var description: String { "\(algorithm.rawValue)=\(hex)" }
}
