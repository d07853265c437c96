/// Which addresses are public: a server on one may not point fastget at anything else.
extension IPAddress {
    /// Whether the address belongs to the public internet rather than to this machine or its
    /// networks: not unspecified, loopback, private (RFC 1918), shared (100.64/10, carrier NAT),
    /// link-local, unique-local, site-local, multicast, broadcast or reserved. An IPv6 address
    /// that carries an IPv4 one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
    /// `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`) is judged by the IPv4 address it carries.
    package var isPublic: Bool {
        #if FASTGET_FAULTS
        if IPAddress.countedPublic.withLock({ $0.contains(self) }) { return true }
        #endif
        switch self {
        case .v4(let value):
            return IPAddress.isPublicV4(value)
        case .v6(let bytes):
            if let carried = IPAddress.carriedV4(bytes) { return IPAddress.isPublicV4(carried) }
            let first = bytes[0]
            let second = bytes[1]
            if first == 0xFF { return false } // multicast
            if first & 0xFE == 0xFC { return false } // unique-local fc00::/7
            if first == 0xFE && second & 0xC0 == 0x80 { return false } // link-local fe80::/10
            if first == 0xFE && second & 0xC0 == 0xC0 { return false } // site-local fec0::/10
            if bytes[0..<6] == [0, 0x64, 0xFF, 0x9B, 0, 1] { return false } // local-use NAT64 64:ff9b:1::/48
            if bytes[0..<8] == [1, 0, 0, 0, 0, 0, 0, 0] { return false } // discard-only 100::/64
            return true
        }
    }

    /// The IPv4 address an IPv6 one stands for: mapped, compatible (which includes `::` and
    /// `::1`, judged as 0.0.0.0 and 0.0.0.1), NAT64's well-known prefix, or 6to4.
    private static func carriedV4(_ bytes: [UInt8]) -> UInt32? {
        func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && ((bytes[10] == 0 && bytes[11] == 0) || (bytes[10] == 0xFF && bytes[11] == 0xFF)) {
            return word(12)
        }
        if bytes[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return word(12) }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return word(2) }
        return nil
    }

    private static func isPublicV4(_ value: UInt32) -> Bool {
        let inside: [(network: UInt32, bits: UInt32)] = [
            (0x0000_0000, 8), // "this network", 0.0.0.0 (connecting to it reaches this machine)
            (0x0A00_0000, 8), // private
            (0x6440_0000, 10), // shared address space (carrier-grade NAT)
            (0x7F00_0000, 8), // loopback
            (0xA9FE_0000, 16), // link-local (cloud metadata services live here)
            (0xAC10_0000, 12), // private
            (0xC000_0000, 24), // IETF protocol assignments
            (0xC0A8_0000, 16), // private
            (0xC612_0000, 15), // benchmarking
            (0xE000_0000, 4), // multicast
            (0xF000_0000, 4), // reserved, and the broadcast address
        ]
        return !inside.contains { value >> (32 - $0.bits) == $0.network >> (32 - $0.bits) }
    }

    #if FASTGET_FAULTS
    /// A test hook (debug builds only): addresses that count as public, so that a loopback test
    /// server can play a public one. Loopback addresses other than 127.0.0.1 (127.0.0.2) serve.
    package static let countedPublic = Locked<Set<IPAddress>>([])
    #endif
}
