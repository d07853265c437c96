/// aria2's control file, `NAME.aria2`, beside the file it preallocated: which pieces are done.
///
/// The layout (aria2's DefaultBtProgressInfoFile): version (2 bytes, 0 or 1), extension (4;
/// bit 0 of the last byte marks a BitTorrent download), info hash length (4, at most 20) and
/// the hash, piece length (4), total length (8), upload length (8), bitfield length (4) and the
/// bitfield (one bit a piece, the most significant bit first), the number of pieces in flight
/// (4), then for each: its index (4), its length (4), its bitfield's length (4) and the
/// bitfield (one bit per 16 KiB block). Version 1 is big-endian; version 0 is in the writer's
/// order (little-endian here).
enum Aria2ControlFile {
    /// aria2's block within a piece in flight.
    static let blockLength: Int64 = 16 * 1024
    static let infoHashLength = 20
    /// The most done ranges kept: each becomes a journal segment, with a gap to fetch between
    /// two, and the journal holds `Journal.maximumSegments`.
    static let maximumRanges = Journal.maximumSegments / 2

    /// The byte ranges `bytes` marks complete in a file of `length` bytes, in order and
    /// joined; throws when the file is not aria2's, is damaged, or describes another length.
    static func completeRanges(_ bytes: [UInt8], length: Int64) throws(ForeignStateError) -> [ByteRange] {
        guard bytes.count >= 2, bytes[0] == 0, bytes[1] <= 1 else { throw ForeignStateError("it is not an aria2 control file of version 0 or 1") }
        var reader = StateFileReader(bytes, bigEndian: bytes[1] == 1)
        try reader.skip(2, "version")
        let extensionBytes = try reader.bytes(4, "extension")
        if extensionBytes.last! & 1 != 0 { throw ForeignStateError("it is a BitTorrent download's") }
        let hashLength = try reader.uint32("info hash length")
        guard hashLength <= infoHashLength else { throw ForeignStateError("its info hash length \(hashLength) is not aria2's") }
        try reader.skip(Int(hashLength), "info hash")
        let pieceLength = Int64(try reader.uint32("piece length"))
        guard pieceLength > 0 else { throw ForeignStateError("its piece length is 0") }
        let total = try reader.uint64("total length")
        guard total == UInt64(length) else {
            throw ForeignStateError("it is for a file of \(total) bytes, and the server's has \(length)")
        }
        _ = try reader.uint64("upload length")
        // Rounded up without `length + pieceLength - 1`, which a length near Int64.max overflows.
        let pieces = length / pieceLength + (length % pieceLength == 0 ? 0 : 1)
        let bitfieldLength = try reader.uint32("bitfield length")
        guard Int64(bitfieldLength) == pieces / 8 + (pieces % 8 == 0 ? 0 : 1) else {
            throw ForeignStateError("its bitfield has \(bitfieldLength) bytes for \(pieces) pieces")
        }
        let bitfield = try reader.bytes(Int(bitfieldLength), "bitfield")
        var ranges = RangeCollector(limit: maximumRanges)
        try collect(bitfield, units: pieces, into: &ranges) { index in
            let start = index * pieceLength // below `length`: `index` is below `pieces`
            return ByteRange(start: start, end: start + min(pieceLength, length - start))
        }
        let inFlight = Int64(try reader.uint32("number of pieces in flight"))
        guard inFlight <= pieces else { throw ForeignStateError("it has \(inFlight) pieces in flight of \(pieces)") }
        // Pieces in flight come in any order: collected apart, then merged with the bitfield's.
        var partial = RangeCollector(limit: maximumRanges)
        for _ in 0..<inFlight {
            let index = Int64(try reader.uint32("piece index"))
            let pieceSize = Int64(try reader.uint32("piece's length"))
            guard index < pieces, pieceSize <= min(pieceLength, length - index * pieceLength) else {
                throw ForeignStateError("its piece in flight \(index) of \(pieceSize) bytes is outside the file")
            }
            let blocks = (pieceSize + blockLength - 1) / blockLength
            let blockBitfieldLength = try reader.uint32("piece's bitfield length")
            guard Int64(blockBitfieldLength) == (blocks + 7) / 8 else {
                throw ForeignStateError("its piece \(index) has a bitfield of \(blockBitfieldLength) bytes for \(blocks) blocks")
            }
            let blockBits = try reader.bytes(Int(blockBitfieldLength), "piece's bitfield")
            let pieceStart = index * pieceLength
            try collect(blockBits, units: blocks, into: &partial) { block in
                let start = pieceStart + block * blockLength
                return ByteRange(start: start, end: min(pieceStart + pieceSize, start + blockLength))
            }
        }
        guard reader.remaining == 0 else { throw ForeignStateError("it has \(reader.remaining) bytes past its end") }
        let joined = ByteRange.joined(ranges.ranges + partial.ranges)
        guard joined.count <= maximumRanges else { throw ForeignStateError(RangeCollector.scattered) }
        return joined
    }

    /// The ranges of the set bits among the first `units` of `bitfield` (most significant bit
    /// first, aria2's order), `range(index)` each, joined as they come. A byte with no bit set,
    /// or every bit, is taken whole: a 16 MiB bitfield costs 16 Mi steps, not 128 Mi.
    private static func collect(
        _ bitfield: ArraySlice<UInt8>, units: Int64, into ranges: inout RangeCollector, _ range: (Int64) -> ByteRange
    ) throws(ForeignStateError) {
        for (offset, byte) in bitfield.enumerated() where byte != 0 {
            let first = Int64(offset) * 8
            if byte == 0xFF {
                try ranges.append(ByteRange(start: range(first).start, end: range(min(first + 8, units) - 1).end))
                continue
            }
            for bit in 0..<Int64(8) where first + bit < units && byte & (0x80 >> UInt8(bit)) != 0 {
                try ranges.append(range(first + bit))
            }
        }
    }
}

/// Ranges in order, each joined to the last when they touch; more than `limit` is an error
/// (the journal could not record them), said before the list grows past it.
struct RangeCollector {
    static let scattered = "its done ranges are too scattered to record"
    let limit: Int
    private(set) var ranges: [ByteRange] = []

    init(limit: Int) { self.limit = limit }

    mutating func append(_ range: ByteRange) throws(ForeignStateError) {
        if let last = ranges.last, last.end == range.start {
            ranges[ranges.count - 1] = ByteRange(start: last.start, end: range.end)
            return
        }
        guard ranges.count < limit else { throw ForeignStateError(RangeCollector.scattered) }
        ranges.append(range)
    }
}
