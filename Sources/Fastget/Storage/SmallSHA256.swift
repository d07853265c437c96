/// SHA-256 (FIPS 180-4) of a short text, in Swift: the marks' tags (`SidecarFiles.tag`) need
/// one for every file, and libcrypto's would load its providers into a plain-HTTP download
/// that otherwise never touches it (2 MB more resident, measured). Not for file digests: those
/// go through libcrypto (`Digest`), which is far faster on long inputs.
enum SmallSHA256 {
    private static let rounds: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The 32-byte digest of `bytes`.
    static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        // The message, its 0x80, zeros and its length in bits: whole 64-byte blocks.
        var message: [UInt8] = []
        let count = bytes.count
        let padded = (count + 8) / 64 * 64 + 64
        message.reserveCapacity(padded)
        message.append(contentsOf: bytes)
        message.append(0x80)
        message.append(contentsOf: repeatElement(0, count: padded - 8 - message.count))
        let bits = UInt64(count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            rounds.withUnsafeBufferPointer { rounds in
                message.withUnsafeBufferPointer { message in
                    for block in stride(from: 0, to: message.count, by: 64) {
                        compress(&state, message, block, words, rounds)
                    }
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    /// One 64-byte block of `message`, at `block`, into `state`.
    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32), _ message: UnsafeBufferPointer<UInt8>,
        _ block: Int, _ words: UnsafeMutableBufferPointer<UInt32>, _ rounds: UnsafeBufferPointer<UInt32>
    ) {
        for index in 0..<16 {
            let at = block + 4 * index
            words[index] = UInt32(message[at]) << 24 | UInt32(message[at + 1]) << 16 | UInt32(message[at + 2]) << 8 | UInt32(message[at + 3])
        }
        for index in 16..<64 {
            let early = words[index - 15], late = words[index - 2]
            let small0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >> 3)
            let small1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >> 10)
            words[index] = words[index - 16] &+ small0 &+ words[index - 7] &+ small1
        }
        var (a, b, c, d, e, f, g, h) = state
        for index in 0..<64 {
            let big1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let first = h &+ big1 &+ choice &+ rounds[index] &+ words[index]
            let big0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ big0 &+ majority)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }
}
