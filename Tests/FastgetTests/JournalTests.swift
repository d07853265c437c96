@testable import Fastget
import Testing

@Suite struct JournalTests {
    static let sample = Journal(
        url: "http://example.com/big.iso", finalURL: "http://cdn.example.com/x/big.iso", length: 10_000,
        validator: .etag("\"abc\""),
        segments: [
            .init(start: 0, end: 4000, written: 1234), .init(start: 4000, end: 7000, written: 7000),
            .init(start: 7000, end: 10_000, written: 7000),
        ])

    @Test(arguments: [Validator?.none, .etag("\"v1\""), .lastModified("Sat, 21 Nov 2026 10:00:00 GMT")])
    func roundTrips(validator: Validator?) throws {
        var journal = JournalTests.sample
        journal.validator = validator
        #expect(try Journal.decode(journal.encoded()) == journal)
        #expect(journal.bytesWritten == 1234 + 3000)
    }

    @Test func recordsEveryMirrorWithItsValidator() throws {
        var journal = JournalTests.sample
        journal.mirrors = [
            .init(url: "http://mirror.example.net/big.iso", validator: .etag("\"m1\"")),
            .init(url: "https://other.example.org/big.iso", validator: nil),
            .init(url: "http://third.example/big.iso", validator: .lastModified("Sat, 21 Nov 2026 10:00:00 GMT")),
        ]
        #expect(try Journal.decode(journal.encoded()) == journal)
        journal.digest = try Checksum("sha-256=" + String(repeating: "ab", count: 32))
        #expect(try Journal.decode(journal.encoded()) == journal)
    }

    /// A journal an earlier version wrote (version 1, no mirror list) still resumes.
    @Test func readsAVersionOneJournal() throws {
        let current = JournalTests.sample.encoded()
        let payload = Array(current[Journal.headerSize..<(current.count - 12)]) // without the mirror count, digest and CRC
        var bytes = Journal.magic
        bytes.appendLittleEndian(UInt16(1))
        bytes.appendLittleEndian(UInt16(0))
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes += payload
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        #expect(try Journal.decode(bytes) == JournalTests.sample)
    }

    @Test func rejectsEveryTruncation() {
        let bytes = JournalTests.sample.encoded()
        for count in 0..<bytes.count {
            #expect(throws: JournalError.truncated, "truncated to \(count)") { try Journal.decode(Array(bytes.prefix(count))) }
        }
    }

    @Test func rejectsEveryFlippedByteWithItsOwnError() {
        let bytes = JournalTests.sample.encoded()
        for index in bytes.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = bytes
                damaged[index] ^= mask
                do {
                    _ = try Journal.decode(damaged)
                    Issue.record("byte \(index) ^ \(mask) was accepted")
                } catch {
                    switch index {
                    case 0..<8: #expect(error == .foreign, "byte \(index)")
                    case 8..<10: #expect(error == .unsupportedVersion(UInt16(damaged[8]) | UInt16(damaged[9]) << 8), "byte \(index)")
                    case 12..<16: #expect(error == .truncated || error == .trailingBytes, "byte \(index): \(error)")
                    default: #expect(error == .checksumMismatch, "byte \(index): \(error)")
                    }
                }
            }
        }
    }

    @Test func rejectsTrailingBytesAndForeignFiles() {
        #expect(throws: JournalError.trailingBytes) { try Journal.decode(JournalTests.sample.encoded() + [0]) }
        #expect(throws: JournalError.foreign) { try Journal.decode(Array("PK\u{3}\u{4} a zip file, not a journal".utf8)) }
    }

    @Test(arguments: [
        [Journal.Entry(start: 0, end: 4000, written: 0), .init(start: 4001, end: 10_000, written: 4001)], // gap
        [.init(start: 0, end: 5000, written: 0), .init(start: 4000, end: 10_000, written: 4000)], // overlap
        [.init(start: 0, end: 10_000, written: 10_001)], // past the end
        [.init(start: 0, end: 9_999, written: 0)], // short
        [.init(start: 0, end: 5000, written: -1), .init(start: 5000, end: 10_000, written: 5000)], // negative
        [],
    ])
    func rejectsSegmentsThatDoNotTileTheFile(segments: [Journal.Entry]) {
        var journal = JournalTests.sample
        journal.segments = segments
        #expect(throws: JournalError.self) { try Journal.decode(journal.encoded()) }
    }

    @Test func crcMatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func refusesAStringThatIsNotUTF8() {
        // Found by fuzzing: a lossy decode turned the bytes into another URL.
        var journal = JournalTests.sample
        journal.url = "http://example.com/AAAA"
        var bytes = journal.encoded()
        let at = bytes.indices.first { bytes[$0...].starts(with: Array("AAAA".utf8)) }!
        bytes[at] = 0xCE
        bytes[at + 1] = 0x66
        // Recompute the checksum so that only the UTF-8 check can object.
        bytes.removeLast(4)
        let crc = CRC32.checksum(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
        #expect(throws: JournalError.invalid("a string is not UTF-8")) { try Journal.decode(bytes) }
    }
}
