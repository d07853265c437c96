/// axel's state file, `NAME.st`, beside the file it writes in place: how far each connection got.
///
/// The layout (axel's stfile.c), in the writer's own order (little-endian here), `off_t`
/// being 8 bytes: the number of connections (2 bytes), the bytes done (8), then for each
/// connection the next byte it would fetch and the end of its chunk (8 each). The chunks tile
/// the file in order: connection `i` fetches from the previous one's end up to its own, and
/// has everything before its next byte. Older axel wrote no chunk ends (axel recomputes them
/// from its settings); such a file cannot be read safely and is refused.
enum AxelStateFile {
    /// The byte ranges `bytes` marks complete in a file of `length` bytes, in order and
    /// joined; throws when the file is damaged, of another format, or for another length.
    static func completeRanges(_ bytes: [UInt8], length: Int64) throws(ForeignStateError) -> [ByteRange] {
        var reader = StateFileReader(bytes, bigEndian: false)
        let connections = Int(try reader.uint16("number of connections"))
        guard connections > 0 else { throw ForeignStateError("it has no connections") }
        guard bytes.count == 2 + 8 + 16 * connections else {
            if bytes.count == 2 + 8 + 8 * connections { throw ForeignStateError("it is in an older axel's format, without chunk ends") }
            throw ForeignStateError("it has \(bytes.count) bytes, not the \(2 + 8 + 16 * connections) of \(connections) connections")
        }
        let done = Int64(bitPattern: try reader.uint64("bytes done"))
        var ranges: [ByteRange] = []
        var chunkStart: Int64 = 0
        for connection in 0..<connections {
            let next = Int64(bitPattern: try reader.uint64("connection's next byte"))
            let end = Int64(bitPattern: try reader.uint64("connection's chunk end"))
            guard chunkStart <= next, next <= end, end <= length else {
                throw ForeignStateError("connection \(connection) is at \(next) in the chunk \(chunkStart)-\(end) of a file of \(length) bytes")
            }
            ranges.append(ByteRange(start: chunkStart, end: next))
            chunkStart = end
        }
        guard chunkStart == length else {
            throw ForeignStateError("its chunks end at byte \(chunkStart), and the server's file has \(length) bytes")
        }
        guard done >= 0, done <= length else { throw ForeignStateError("it counts \(done) bytes done of \(length)") }
        return ByteRange.joined(ranges)
    }
}
