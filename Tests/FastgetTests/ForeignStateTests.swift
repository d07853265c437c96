@testable import Fastget
import FastgetTestSupport
import Testing

/// aria2's control file and axel's state file: what they mark done, and everything refused.
@Suite struct ForeignStateTests {
    static let length: Int64 = 4 << 20 + 1000
    static let piece = 1 << 20

    static func range(_ start: Int64, _ end: Int64) -> ByteRange { ByteRange(start: start, end: end) }

    @Test(arguments: [UInt8(0), 1])
    func aria2PiecesAndBlocksInFlightAreReadInEitherVersion(version: UInt8) throws {
        let bytes = ForeignStateFiles.aria2(
            version: version, length: Self.length, pieceLength: Self.piece, done: [0, 2],
            inFlight: [(1, [0, 1, 2, 5]), (4, [0])])
        let ranges = try Aria2ControlFile.completeRanges(bytes, length: Self.length)
        let mib = Int64(Self.piece)
        #expect(
            ranges == [
                Self.range(0, mib + 3 * 16384), Self.range(mib + 5 * 16384, mib + 6 * 16384), Self.range(2 * mib, 3 * mib),
                Self.range(4 * mib, Self.length),
            ])
    }

    @Test func aria2FilesThatCannotVouchForTheBytesAreRefused() {
        let good = ForeignStateFiles.aria2(version: 1, length: Self.length, pieceLength: Self.piece, done: [0], inFlight: [(1, [0])])
        for cut in 0..<good.count {
            #expect(throws: ForeignStateError.self) { try Aria2ControlFile.completeRanges(Array(good[..<cut]), length: Self.length) }
        }
        #expect(throws: ForeignStateError.self) { try Aria2ControlFile.completeRanges(good + [0], length: Self.length) }
        #expect(throws: ForeignStateError("it is for a file of \(Self.length) bytes, and the server's has 5")) {
            try Aria2ControlFile.completeRanges(good, length: 5)
        }
        var torrent = good
        torrent[5] = 1
        #expect(throws: ForeignStateError("it is a BitTorrent download's")) { try Aria2ControlFile.completeRanges(torrent, length: Self.length) }
        var version = good
        version[1] = 2
        #expect(throws: ForeignStateError.self) { try Aria2ControlFile.completeRanges(version, length: Self.length) }
        // A piece in flight past the file's end.
        let outside = ForeignStateFiles.aria2(version: 1, length: Self.length, pieceLength: Self.piece, done: [], inFlight: [(9, [])])
        #expect(throws: ForeignStateError.self) { try Aria2ControlFile.completeRanges(outside, length: Self.length) }
    }

    /// A bitfield near the size cap is read in one pass: whole bytes of done or undone pieces
    /// at once, and a scattered one refused as soon as it has more ranges than a journal holds.
    @Test func aria2BitfieldsNearTheCapAreReadWithoutBuildingEveryPiece() throws {
        let pieces = 1 << 20
        let length = Int64(pieces) * 16384
        var whole = ForeignStateFiles.aria2(version: 1, length: length, pieceLength: 16384, done: [])
        let bitfield = 6 + 4 + 4 + 8 + 8 + 4
        for index in bitfield..<(bitfield + pieces / 8) { whole[index] = 0xFF }
        #expect(try Aria2ControlFile.completeRanges(whole, length: length) == [Self.range(0, length)])
        var scattered = whole
        for index in bitfield..<(bitfield + pieces / 8) { scattered[index] = 0xAA }
        #expect(throws: ForeignStateError("its done ranges are too scattered to record")) {
            try Aria2ControlFile.completeRanges(scattered, length: length)
        }
    }

    @Test func axelChunksAreReadUpToEachConnectionsNextByte() throws {
        let bytes = ForeignStateFiles.axel(connections: [(100, 1000), (1000, 3000), (3500, Self.length)], done: 600)
        #expect(try AxelStateFile.completeRanges(bytes, length: Self.length) == [Self.range(0, 100), Self.range(3000, 3500)])
    }

    @Test func axelFilesThatCannotVouchForTheBytesAreRefused() {
        let good = ForeignStateFiles.axel(connections: [(100, 1000), (1000, Self.length)], done: 100)
        for cut in 0..<good.count {
            #expect(throws: ForeignStateError.self) { try AxelStateFile.completeRanges(Array(good[..<cut]), length: Self.length) }
        }
        #expect(throws: ForeignStateError.self) { try AxelStateFile.completeRanges(good, length: Self.length - 1) }
        let old = Array(good[0..<10]) + Array(good[10..<18]) + Array(good[26..<34])
        #expect(throws: ForeignStateError("it is in an older axel's format, without chunk ends")) {
            try AxelStateFile.completeRanges(old, length: Self.length)
        }
        let backwards = ForeignStateFiles.axel(connections: [(100, 1000), (900, Self.length)], done: 100)
        #expect(throws: ForeignStateError.self) { try AxelStateFile.completeRanges(backwards, length: Self.length) }
        let beyond = ForeignStateFiles.axel(connections: [(100, 1000), (1000, Self.length + 1)], done: 100)
        #expect(throws: ForeignStateError.self) { try AxelStateFile.completeRanges(beyond, length: Self.length) }
    }
}
