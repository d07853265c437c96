/// Reads another tool's state file field by field, every read bounded by the bytes there are:
/// a truncated or hostile file ends in an error, never a read past its end or a huge allocation.
struct StateFileReader {
    let bytes: [UInt8]
    /// Version 1 of aria2's control file is big-endian; aria2's version 0 and axel's state file
    /// are in the writer's own order, little-endian on every machine these tools run on now.
    let bigEndian: Bool
    private(set) var offset = 0

    init(_ bytes: [UInt8], bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    var remaining: Int { bytes.count - offset }

    mutating func skip(_ count: Int, _ what: String) throws(ForeignStateError) {
        guard count >= 0, count <= remaining else { throw ForeignStateError("it ends inside its \(what)") }
        offset += count
    }

    mutating func bytes(_ count: Int, _ what: String) throws(ForeignStateError) -> ArraySlice<UInt8> {
        let start = offset
        try skip(count, what)
        return bytes[start..<offset]
    }

    mutating func integer(size: Int, _ what: String) throws(ForeignStateError) -> UInt64 {
        let field = try bytes(size, what)
        let ordered = bigEndian ? Array(field) : field.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint16(_ what: String) throws(ForeignStateError) -> UInt16 { UInt16(try integer(size: 2, what)) }
    mutating func uint32(_ what: String) throws(ForeignStateError) -> UInt32 { UInt32(try integer(size: 4, what)) }
    mutating func uint64(_ what: String) throws(ForeignStateError) -> UInt64 { try integer(size: 8, what) }
}

/// Why another tool's state file cannot be used: one phrase, said after the file's name.
struct ForeignStateError: Error, Equatable, CustomStringConvertible {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}
