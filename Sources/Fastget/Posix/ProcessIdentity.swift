internal import Glibc

/// Names this process can use without meeting another process's, and who it runs as.
package enum ProcessIdentity {
    /// The bytes `uniqueSuffix()` has. Names built on it stay within `NAME_MAX`.
    package static let longestSuffixBytes = 17

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// 17 random letters and digits (about 88 bits, from the system's generator): a name no
    /// other process meets and none can guess ahead. A pid and a counter could be guessed, and
    /// a hostile directory could take every name a run would try before it starts. A caller
    /// still creates the file it names exclusively.
    package static func uniqueSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<longestSuffixBytes).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The user this process acts as, whose files it may adopt. The corresponding C function
    /// is `geteuid`.
    package static var effectiveUser: UInt32 { geteuid() }
}
