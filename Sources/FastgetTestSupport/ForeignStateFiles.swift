/// State files of other downloaders, built byte by byte from their documented layouts, for
/// tests of `-c` on what they left.
public enum ForeignStateFiles {
    /// aria2's control file (`NAME.aria2`) of `version` 0 (little-endian) or 1 (big-endian) for
    /// a file of `length` bytes in pieces of `pieceLength`: `done` pieces complete, and
    /// `inFlight` pieces with the given 16 KiB blocks complete.
    public static func aria2(
        version: UInt8, length: Int64, pieceLength: Int, done: Set<Int>, inFlight: [(index: Int, blocks: Set<Int>)] = []
    ) -> [UInt8] {
        let big = version == 1
        func int(_ value: UInt64, _ size: Int) -> [UInt8] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            return big ? bytes.reversed() : bytes
        }
        func bitfield(_ count: Int, _ set: Set<Int>) -> [UInt8] {
            var bits = [UInt8](repeating: 0, count: (count + 7) / 8)
            for index in set { bits[index / 8] |= 0x80 >> UInt8(index % 8) }
            return bits
        }
        let pieces = Int((length + Int64(pieceLength) - 1) / Int64(pieceLength))
        var bytes: [UInt8] = [0, version, 0, 0, 0, 0] + int(0, 4) + int(UInt64(pieceLength), 4) + int(UInt64(length), 8) + int(0, 8)
        let field = bitfield(pieces, done)
        bytes += int(UInt64(field.count), 4) + field + int(UInt64(inFlight.count), 4)
        for piece in inFlight {
            let size = max(0, min(Int64(pieceLength), length - Int64(piece.index * pieceLength)))
            let blocks = bitfield(Int((size + 16383) / 16384), piece.blocks)
            bytes += int(UInt64(piece.index), 4) + int(UInt64(size), 4) + int(UInt64(blocks.count), 4) + blocks
        }
        return bytes
    }

    /// axel's state file (`NAME.st`, little-endian, 8-byte `off_t`): each connection's next
    /// byte and chunk end.
    public static func axel(connections: [(next: Int64, end: Int64)], done: Int64) -> [UInt8] {
        func int(_ value: Int64, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * Int64($0))) } }
        return int(Int64(connections.count), 2) + int(done, 8) + connections.flatMap { int($0.next, 8) + int($0.end, 8) }
    }
}
