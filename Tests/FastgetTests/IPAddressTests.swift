import Fastget
import Glibc
import Testing

/// Hosts read as the resolver reads them: every form `inet_aton` and `inet_pton` accept, checked
/// against them, and which addresses are public.
@Suite struct IPAddressTests {
    /// What glibc's `inet_aton` makes of `text`; nil when it refuses it.
    static func libcV4(_ text: String) -> UInt32? {
        var address = in_addr()
        return inet_aton(text, &address) == 1 ? UInt32(bigEndian: address.s_addr) : nil
    }

    static func libcV6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    @Test(arguments: [
        "127.1", "2130706433", "0x7f000001", "0X7F000001", "0177.0.0.1", "127.0.1", "0", "0.0", "00", "0x", "0x.1", "1.0x",
        "08", "09.1", "0xg", "1.2.3.4", "1.2.3.4.", ".1.2.3", "1..2", "256.1", "1.256.1", "1.2.65535", "1.2.65536",
        "1.16777215", "1.16777216", "4294967295", "4294967296", "0xffffffff", "0x100000000", "037777777777", "040000000000",
        "1.2.3.4.5", "+1", "-1", "1.+2", "0x0x1", "00000000000000000000000001", "0x00000000000000000000001", "", ".", "1.",
        "1.2.3.0377", "1.2.3.0400", "1.2.3.0x100", "1 ", "a", "0xa.0xb.0xc.0xd", "012.034.056.070",
    ])
    func ipv4FormsAreReadAsInetAtonReadsThem(text: String) {
        let mine = IPAddress.inetAton(Substring(text).utf8)
        // inet_aton ignores what follows a blank; the resolver (inet_aton_exact) does not.
        let libc = text.contains(" ") ? nil : IPAddressTests.libcV4(text)
        #expect(mine == libc, "\(text)")
    }

    /// Feeds `parse` and `libc` the same random strings over `alphabet`; returns how many libc
    /// accepted, or records the first string they read differently.
    static func compareOnRandomStrings<Value: Equatable>(
        _ alphabet: String, longest: Int, _ parse: (String) -> Value?, _ libc: (String) -> Value?
    ) -> Int {
        var random = SystemRandomNumberGenerator()
        let letters = Array(alphabet.utf8)
        var accepted = 0
        for _ in 0..<200_000 {
            let count = Int.random(in: 1...longest, using: &random)
            let text = String(decoding: (0..<count).map { _ in letters.randomElement(using: &random)! }, as: UTF8.self)
            let expected = libc(text)
            if expected != nil { accepted += 1 }
            guard parse(text) == expected else {
                Issue.record("read differently from libc: \(text)")
                return accepted
            }
        }
        return accepted
    }

    @Test func ipv4ParserAgreesWithInetAtonOnRandomStrings() {
        let accepted = IPAddressTests.compareOnRandomStrings(
            "0123456789.xXabcdefABCDEFg", longest: 14, { IPAddress.inetAton(Substring($0).utf8) }, IPAddressTests.libcV4)
        #expect(accepted > 1000, "the generator reaches accepted forms too")
    }

    @Test func ipv4ParserAgreesWithInetAtonOnEveryAddressSpelledEveryWay() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = UInt32.random(in: 0...UInt32.max, using: &random)
            let parts = Int.random(in: 1...4, using: &random)
            var pieces: [UInt32] = (0..<parts - 1).map { value >> (24 - 8 * UInt32($0)) & 0xFF }
            pieces.append(parts == 1 ? value : value & (UInt32.max >> (8 * UInt32(parts - 1))))
            let text = pieces.map { piece -> String in
                switch Int.random(in: 0..<3, using: &random) {
                case 0: String(piece)
                case 1: "0" + String(piece, radix: 8)
                default: (Bool.random(using: &random) ? "0x" : "0X") + String(piece, radix: 16, uppercase: Bool.random(using: &random))
                }
            }.joined(separator: ".")
            #expect(IPAddress.inetAton(Substring(text).utf8) == value && IPAddressTests.libcV4(text) == value, "\(text)")
        }
    }

    @Test(arguments: [
        "::", "::1", "0::1", "0:0:0:0:0:0:0:1", "0000::0001", "1::", "1:", ":1", ":::", "1:::2", "1::2::3", "::ffff:127.0.0.1",
        "::127.0.0.1", "::ffff:127.1", "::ffff:127.0.0.01", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7",
        "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4.5", "12345::", "FE80::1", "fe80::1:", "1.2.3.4", "::1.2.3",
        "::256.1.1.1", "1::2:3:4:5:6:7", "1::2:3:4:5:6:7:8", "", "g::", "::ffff:1.2.3.4:5",
    ])
    func ipv6FormsAreReadAsInetPtonReadsThem(text: String) {
        #expect(IPAddress.inetPton6(Substring(text).utf8) == IPAddressTests.libcV6(text), "\(text)")
    }

    @Test func ipv6ParserAgreesWithInetPtonOnRandomStrings() {
        let accepted = IPAddressTests.compareOnRandomStrings(
            "0123456789abcdefABCDEF::::...g", longest: 24, { IPAddress.inetPton6(Substring($0).utf8) }, IPAddressTests.libcV6)
        #expect(accepted > 100, "the generator reaches accepted forms too")
    }

    @Test func hostsAreReadWithBracketsZonesAndEitherCase() {
        #expect(IPAddress(host: "[::1]") == .v6([UInt8](repeating: 0, count: 15) + [1]))
        #expect(IPAddress(host: "fe80::1%eth0") == IPAddress(host: "FE80::1"))
        #expect(IPAddress(host: "0X7F.1") == .v4(0x7F00_0001))
        #expect(IPAddress(host: "example.com") == nil && IPAddress(host: "10.example") == nil)
    }

    @Test func onlyPublicAddressesArePublic() {
        let inside = [
            "0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.255", "127.0.0.1", "127.255.255.254", "169.254.169.254",
            "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.0.0.8", "198.18.0.1", "224.0.0.1", "239.1.1.1", "240.0.0.1",
            "255.255.255.255", "::", "::1", "fe80::1", "febf::1", "fec0::1", "fc00::1", "fdff::1", "ff02::1", "::ffff:10.0.0.1",
            "::ffff:127.0.0.1", "::127.0.0.1", "64:ff9b::a00:1", "64:ff9b:1::1", "2002:7f00:1::", "2002:c0a8:101::1", "100::1",
        ]
        let outside = [
            "1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.169.0.1", "169.253.0.1",
            "11.0.0.1", "223.255.255.255", "2606:4700::1111", "2001:db8::1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::",
        ]
        for text in inside { #expect(IPAddress(host: text)?.isPublic == false, "\(text)") }
        for text in outside { #expect(IPAddress(host: text)?.isPublic == true, "\(text)") }
    }
}
