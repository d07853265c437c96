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

    /// The bytes `hex` spells, two digits a byte.
    static func bytes(hex: String) -> [UInt8] {
        let utf8 = Array(hex.utf8)
        return stride(from: 0, to: utf8.count, by: 2).map { UInt8(String(decoding: utf8[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    @Test(arguments: [
        Validator?.none, .etag("\"v1\""), .lastModified("Sat, 21 Nov 2026 10:00:00 GMT"),
        Validator(etag: "W/\"a\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"), .etag("W/\"a\""),
    ])
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
        journal.failedMirrors = ["http://mirror.example.net/big.iso", "http://bad.example/big.iso"]
        #expect(try Journal.decode(journal.encoded()) == journal)
    }

    /// A version 2 journal, as the release before version 3 wrote it, byte for byte: a strong
    /// ETag (kind 1) and a mirror known by its Last-Modified (kind 2).
    @Test func readsAVersionTwoJournalByteForByte() throws {
        let hex =
            "464153544745544a02000000ef0000001027000000000000010500000022616263221a000000687474703a2f2f657861"
            + "6d706c652e636f6d2f6269672e69736f20000000687474703a2f2f63646e2e6578616d706c652e636f6d2f782f626967"
            + "2e69736f030000000000000000000000a00f000000000000d204000000000000a00f000000000000581b000000000000"
            + "581b000000000000581b0000000000001027000000000000581b0000000000000100000021000000687474703a2f2f6d"
            + "6972726f722e6578616d706c652e6e65742f6269672e69736f021d0000005361742c203231204e6f7620323032362031"
            + "303a30303a303020474d5400000000fc567d7a"
        let bytes = JournalTests.bytes(hex: hex)
        var expected = JournalTests.sample
        // Its Last-Modified was kept where a weak ETag may have been dropped.
        expected.mirrors = [
            .init(url: "http://mirror.example.net/big.iso", validator: .lastModifiedWithETagUnknown("Sat, 21 Nov 2026 10:00:00 GMT"))
        ]
        #expect(try Journal.decode(bytes) == expected)
        // Written again, it is a journal of the current version that says the same, what it knows now.
        expected.mirrors[0].validator = .lastModified("Sat, 21 Nov 2026 10:00:00 GMT")
        #expect(try Journal.decode(expected.encoded()) == expected)
    }

    /// A version 3 journal, as the release before version 4 wrote it, byte for byte: a weak
    /// ETag with Last-Modified and a failed mirror; it kept no bytes unchecked and adopted no
    /// state file.
    @Test func readsAVersionThreeJournalByteForByte() throws {
        let hex =
            "464153544745544a03000000ea000000102700000000000005000000572f2261221d0000005361742c203231204e6f76"
            + "20323032362031303a30303a303020474d541a000000687474703a2f2f6578616d706c652e636f6d2f6269672e69736f"
            + "20000000687474703a2f2f63646e2e6578616d706c652e636f6d2f782f6269672e69736f030000000000000000000000"
            + "a00f000000000000d204000000000000a00f000000000000581b000000000000581b000000000000581b000000000000"
            + "1027000000000000581b0000000000000000000000000000010000001a000000687474703a2f2f6261642e6578616d70"
            + "6c652f6269672e69736f6e3b2d4e"
        let bytes = JournalTests.bytes(hex: hex)
        var expected = JournalTests.sample
        expected.validator = Validator(etag: "W/\"a\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")
        expected.failedMirrors = ["http://bad.example/big.iso"]
        #expect(try Journal.decode(bytes) == expected)
        #expect(try Journal.decode(expected.encoded()) == expected)
    }

    /// Version 4 carries what `-c` adopted: bytes kept unchecked and the other tool's state file.
    @Test func recordsWhatContinueAdopted() throws {
        var journal = JournalTests.sample
        journal.keptUnchecked = true
        #expect(try Journal.decode(journal.encoded()) == journal)
        journal.adoptedState = .init(name: "big.iso.aria2", device: 2049, inode: 1_234_567, size: 52)
        #expect(try Journal.decode(journal.encoded()) == journal)
        journal.adoptedState?.name = "../big.iso.aria2"
        #expect(throws: JournalError.invalid("state file '../big.iso.aria2'")) { try Journal.decode(journal.encoded()) }
    }

    /// A journal of an earlier version knows one validator; the probe's other one is no
    /// difference, so the resume goes on after an upgrade. A weak ETag that changed is one.
    @Test func sameVersionComparesEveryValidatorBothKnow() {
        let date = "Sat, 21 Nov 2026 10:00:00 GMT"
        #expect(Validator.same(.etag("\"abc\""), Validator(etag: "\"abc\"", lastModified: date)))
        #expect(Validator.same(.lastModified(date), Validator(etag: "W/\"a\"", lastModified: date)))
        // A version 1 or 2 record of the date alone may have dropped a weak ETag: it cannot tell.
        #expect(!Validator.same(.lastModifiedWithETagUnknown(date), Validator(etag: "W/\"a\"", lastModified: date)))
        #expect(Validator.same(.lastModifiedWithETagUnknown(date), .lastModified(date)))
        // A strong ETag both give decides; dates compare as dates.
        let other = "Wednesday, 21-Nov-26 10:00:00 GMT"
        #expect(Validator.same(Validator(etag: "\"s\"", lastModified: date), Validator(etag: "\"s\"", lastModified: other)))
        #expect(!Validator.same(.lastModified(date), .lastModified("Sat, 21 Nov 2026 10:00:01 GMT")))
        #expect(Validator.same(.lastModified(date), .lastModified("Sat,  21 Nov 2026 10:00:00 GMT")))
        #expect(!Validator.same(Validator(etag: "W/\"a\"", lastModified: date), Validator(etag: "W/\"b\"", lastModified: date)))
        #expect(!Validator.same(.lastModified(date), Validator(etag: "\"s\"", lastModified: date)), "a strong ETag appeared")
        #expect(!Validator.same(.etag("\"abc\""), .lastModified(date)), "the strong ETag went")
        #expect(Validator(etag: "W/\"a\"", lastModified: date)?.headerValue == date)
        #expect(Validator.etag("W/\"a\"").headerValue == nil)
    }

    /// A journal an earlier version wrote (version 1, no mirror list) still resumes.
    @Test func readsAVersionOneJournal() throws {
        let sample = JournalTests.sample
        var payload: [UInt8] = []
        payload.appendLittleEndian(sample.length)
        payload.append(1) // kind: strong ETag
        payload.appendString("\"abc\"")
        payload.appendString(sample.url)
        payload.appendString(sample.finalURL)
        payload.appendLittleEndian(UInt32(sample.segments.count))
        for segment in sample.segments { [segment.start, segment.end, segment.written].forEach { payload.appendLittleEndian($0) } }
        #expect(try Journal.decode(Journal.framed(payload, version: 1)) == JournalTests.sample)
    }

    /// A version 5 journal byte for byte (also a fuzz seed): the version 4 one with kept bytes
    /// and an adopted aria2 state file, and 12.345 s of time.
    @Test func readsAVersionFiveJournalByteForByte() throws {
        let hex =
            "464153544745544a050000001c010000102700000000000005000000572f2261221d0000005361742c203231204e6f76"
            + "20323032362031303a30303a303020474d541a000000687474703a2f2f6578616d706c652e636f6d2f6269672e69736f"
            + "20000000687474703a2f2f63646e2e6578616d706c652e636f6d2f782f6269672e69736f030000000000000000000000"
            + "a00f000000000000d204000000000000a00f000000000000581b000000000000581b000000000000581b000000000000"
            + "1027000000000000581b0000000000000000000000000000010000001a000000687474703a2f2f6261642e6578616d70"
            + "6c652f6269672e69736f010d0000006269672e69736f2e6172696132010800000000000087d612000000000034000000"
            + "000000003930000000000000704e73f4"
        let bytes = JournalTests.bytes(hex: hex)
        var expected = JournalTests.sample
        expected.validator = Validator(etag: "W/\"a\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")
        expected.failedMirrors = ["http://bad.example/big.iso"]
        expected.keptUnchecked = true
        expected.adoptedState = .init(name: "big.iso.aria2", device: 2049, inode: 1_234_567, size: 52)
        expected.seconds = 12.345
        #expect(try Journal.decode(bytes) == expected)
        #expect(expected.encoded() == bytes)
        // A time beyond any download's is a damaged journal, not a number to count on from.
        let damaged = Array(bytes.dropLast(12)) + [UInt8](repeating: 0xFF, count: 8) // the time, without the CRC
        #expect(throws: JournalError.invalid("\(UInt64.max) ms of time")) { try Journal.decode(Journal.framed(damaged[Journal.headerSize...])) }
    }

    /// Version 5 carries the time the download ran, to the millisecond; a version 4 journal
    /// (the same payload without it) reads as no time yet.
    @Test func recordsTheTimeTheDownloadRan() throws {
        var journal = JournalTests.sample
        journal.adoptedState = .init(name: "big.iso.aria2", device: 2049, inode: 1_234_567, size: 52)
        journal.seconds = 12.345
        #expect(try Journal.decode(journal.encoded()) == journal)
        let current = journal.encoded()
        let payload = current[Journal.headerSize..<(current.count - 4 - 8)]
        #expect(Array(current[(current.count - 12)..<(current.count - 4)]) == [0x39, 0x30, 0, 0, 0, 0, 0, 0]) // 12345 ms
        journal.seconds = 0
        #expect(try Journal.decode(Journal.framed(payload, version: 4)) == journal)
        journal.seconds = -1 // a clock that went back: no time, not a wrap-around
        #expect(try Journal.decode(journal.encoded()).seconds == 0)
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
                    case 8..<10:
                        // Another version this one reads fails on the checksum instead.
                        let version = UInt16(damaged[8]) | UInt16(damaged[9]) << 8
                        let expected = (1...Journal.version).contains(version) ? .checksumMismatch : JournalError.unsupportedVersion(version)
                        #expect(error == expected, "byte \(index)")
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
