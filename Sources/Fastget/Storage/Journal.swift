/// The resume journal, `<name>.fastget` beside `<name>.part`: which bytes of which version of
/// which URL are on disk.
///
/// Layout, little-endian, version 5:
///
///     offset  size  field
///     0       8     magic "FASTGETJ"
///     8       2     version (5)
///     10      2     reserved, 0
///     12      4     payload length P
///     16      P     payload:
///                     i64 total length
///                     validator: u32 n, n bytes ETag as sent (weak or strong);
///                       u32 n, n bytes Last-Modified (each empty when absent)
///                     u32 n, n bytes  URL as given
///                     u32 n, n bytes  final URL after redirects
///                     u32 count, then count × (i64 start, i64 end, i64 written)
///                     u32 count, then count × mirror (u32 n, n bytes URL as given;
///                       validator as above)
///                     u32 n, n bytes  the digest the file must have, `algorithm=hex`, or
///                       empty
///                     u32 count, then count × (u32 n, n bytes) the mirrors, as given, whose
///                       bytes were in a file that failed that digest: not used again
///                     u8 flags: bit 0, the file holds bytes `-c` kept that no request
///                       fetched (`keptUnchecked`); the other bits 0
///                     u32 n, n bytes  the name of the other tool's state file `-c` adopted
///                       (`NAME.aria2`, `NAME.st`, in NAME's directory), or empty; then
///                       u64 device, u64 inode, i64 size of that file (0 when none)
///                     u64 milliseconds the download ran in the runs that wrote this
///                       journal and its predecessors (progress counts on from there)
///     16+P    4     CRC-32 of bytes [0, 16+P)
///
/// Versions 1 to 4 are still read (4 ends before the milliseconds, which read as 0). The validators of 1 and 2 are a kind byte (0 none, 1 strong
/// ETag, 2 Last-Modified) and its text, so they know one field; version 1 ends after the
/// segments, version 2 after the digest, version 3 after the failed mirrors (its files hold
/// no kept bytes and no adopted state file). The Last-Modified of 1 and 2 was written whenever
/// there was no strong ETag, a weak one dropped: against a server that now sends a weak ETag,
/// such a record cannot tell the versions apart (`Validator.cannotTell`), and the download
/// starts over.
///
/// Segments are in file order and tile [0, length); `written` is the first byte of the segment
/// not known to be durable, so `[start, written)` is on disk. The mirrors are the servers
/// besides `url` that may have served some of those bytes, each with the validator it had: a
/// resume uses a mirror only while it still has that validator. With mirrors, the digest
/// that vouched for their bytes is kept too: a resume checks the file against it even when
/// its own probe (a HEAD, where servers often leave the digest out) does not announce one.
package struct Journal: Sendable, Equatable {
    /// One segment as recorded.
    package typealias Entry = SegmentRecord

    package static let magic = Array("FASTGETJ".utf8)
    package static let version: UInt16 = 5
    static let headerSize = 16
    /// A bound on any string field, so a damaged length cannot ask for gigabytes.
    static let maximumStringBytes = 64 * 1024
    static let maximumSegments = 1 << 16
    static let maximumMirrors = 64
    /// The most bytes a journal can take: every string at its bound (URL, final URL, the
    /// validator's two, the digest, the state file's name; three per mirror; one per failed
    /// mirror), every segment, the flags, the state file's identity and the time.
    static let maximumEncodedSize = Int64(
        headerSize + 4 + 8 + maximumSegments * 24 + 3 * 4 + 1 + 24 + 8 + (6 + 4 * maximumMirrors) * (4 + maximumStringBytes))

    /// A server besides `url` and the validator its file had when it was used.
    package struct Mirror: Sendable, Equatable {
        package var url: String
        package var validator: Validator?

        package init(url: String, validator: Validator?) {
            self.url = url
            self.validator = validator
        }
    }

    package var url: String
    package var finalURL: String
    package var length: Int64
    package var validator: Validator?
    package var segments: [Entry]
    package var mirrors: [Mirror]
    package var digest: Checksum?
    /// Mirrors (URLs as given) whose bytes were in a file that failed `digest`: a rerun
    /// leaves them out.
    package var failedMirrors: [String]
    /// Whether the file starts with bytes `-c` kept that no request fetched: without a digest to
    /// check them, the finished file gets no completion mark, in this run or a resumed one.
    package var keptUnchecked = false
    /// The other tool's state file `-c` continued from: removed after the final rename only if
    /// it is still this very file.
    package var adoptedState: AdoptedState?
    /// The time the download ran in the runs that wrote this journal, in seconds (to the
    /// millisecond, at most `maximumSeconds`).
    package var seconds: Double = 0
    /// A thousand years and more: a larger recorded time is a damaged journal.
    static let maximumSeconds = 1e12

    /// Another tool's state file as `-c` read it: its name beside NAME and its identity.
    package struct AdoptedState: Sendable, Equatable {
        /// The file's name in NAME's directory (`NAME.aria2`, `NAME.st`), never a path.
        package var name: String
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64

        package init(name: String, device: UInt64, inode: UInt64, size: Int64) {
            (self.name, self.device, self.inode, self.size) = (name, device, inode, size)
        }
    }

    package init(
        url: String, finalURL: String, length: Int64, validator: Validator?, segments: [Entry], mirrors: [Mirror] = [],
        digest: Checksum? = nil, failedMirrors: [String] = []
    ) {
        self.url = url
        self.finalURL = finalURL
        self.length = length
        self.validator = validator
        self.segments = segments
        self.mirrors = mirrors
        self.digest = digest
        self.failedMirrors = failedMirrors
    }

    /// Bytes the journal says are on disk.
    package var bytesWritten: Int64 { segments.reduce(0) { $0 + ($1.written - $1.start) } }

    package func encoded() -> [UInt8] {
        var payload: [UInt8] = []
        payload.appendLittleEndian(length)
        payload.appendValidator(validator)
        payload.appendString(url)
        payload.appendString(finalURL)
        payload.appendLittleEndian(UInt32(segments.count))
        for segment in segments {
            payload.appendLittleEndian(segment.start)
            payload.appendLittleEndian(segment.end)
            payload.appendLittleEndian(segment.written)
        }
        payload.appendLittleEndian(UInt32(mirrors.count))
        for mirror in mirrors {
            payload.appendString(mirror.url)
            payload.appendValidator(mirror.validator)
        }
        payload.appendString(digest?.description ?? "")
        payload.appendLittleEndian(UInt32(failedMirrors.count))
        for url in failedMirrors { payload.appendString(url) }
        payload.append(keptUnchecked ? 1 : 0)
        payload.appendString(adoptedState?.name ?? "")
        payload.appendLittleEndian(adoptedState?.device ?? 0)
        payload.appendLittleEndian(adoptedState?.inode ?? 0)
        payload.appendLittleEndian(adoptedState?.size ?? 0)
        payload.appendLittleEndian(UInt64((min(max(0, seconds), Journal.maximumSeconds) * 1000).rounded()))
        return Journal.framed(payload)
    }

    /// `payload` behind the header (magic, version, reserved, length) and followed by the
    /// CRC-32 of everything before it.
    static func framed(_ payload: some Collection<UInt8>, version: UInt16 = Journal.version) -> [UInt8] {
        var bytes = Journal.magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt16(0))
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes += payload
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        return bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(JournalError) -> Journal {
        guard bytes.count >= headerSize + 4 else {
            throw bytes.starts(with: magic.prefix(bytes.count)) ? .truncated : .foreign
        }
        guard bytes.starts(with: magic) else { throw .foreign }
        var reader = ByteReader(bytes: bytes, offset: magic.count)
        let version: UInt16 = try reader.read()
        guard (1...Journal.version).contains(version) else { throw .unsupportedVersion(version) }
        let reserved: UInt16 = try reader.read()
        let payloadLength: UInt32 = try reader.read()
        let total = headerSize + Int(payloadLength) + 4
        guard bytes.count >= total else { throw .truncated }
        guard bytes.count == total else { throw .trailingBytes }
        let stored = UInt32(bytes[total - 4]) | UInt32(bytes[total - 3]) << 8 | UInt32(bytes[total - 2]) << 16 | UInt32(bytes[total - 1]) << 24
        guard CRC32.checksum(bytes[0..<(total - 4)]) == stored else { throw .checksumMismatch }
        guard reserved == 0 else { throw .invalid("reserved field is \(reserved)") }

        reader.end = total - 4
        let length: Int64 = try reader.read()
        let validator = try reader.readValidator(version: version)
        let url = try reader.readString()
        let finalURL = try reader.readString()
        let count: UInt32 = try reader.read()
        guard count <= maximumSegments else { throw .invalid("\(count) segments") }
        var segments: [Entry] = []
        for _ in 0..<count {
            segments.append(Entry(start: try reader.read(), end: try reader.read(), written: try reader.read()))
        }
        var mirrors: [Mirror] = []
        var digest: Checksum?
        var failedMirrors: [String] = []
        if version >= 2 {
            let count: UInt32 = try reader.read()
            guard count <= maximumMirrors else { throw .invalid("\(count) mirrors") }
            for _ in 0..<count {
                mirrors.append(Mirror(url: try reader.readString(), validator: try reader.readValidator(version: version)))
            }
            let text = try reader.readString()
            if !text.isEmpty {
                do { digest = try Checksum(text) } catch { throw .invalid("digest '\(text)'") }
            }
        }
        if version >= 3 {
            let count: UInt32 = try reader.read()
            guard count <= maximumMirrors else { throw .invalid("\(count) failed mirrors") }
            for _ in 0..<count { failedMirrors.append(try reader.readString()) }
        }
        var journal = Journal(
            url: url, finalURL: finalURL, length: length, validator: validator, segments: segments, mirrors: mirrors, digest: digest,
            failedMirrors: failedMirrors)
        if version >= 4 { try reader.readAdoption(into: &journal) }
        if version >= 5 {
            let milliseconds: UInt64 = try reader.read()
            guard Double(milliseconds) <= maximumSeconds * 1000 else { throw .invalid("\(milliseconds) ms of time") }
            journal.seconds = Double(milliseconds) / 1000
        }
        guard reader.offset == reader.end else { throw .invalid("payload has \(reader.end - reader.offset) extra bytes") }
        try journal.checkTiling()
        return journal
    }

    /// Segments in order, tiling [0, length), each watermark inside its segment.
    func checkTiling() throws(JournalError) {
        guard length > 0 else { throw .invalid("length \(length)") }
        guard !segments.isEmpty else { throw .invalid("no segments") }
        var expectedStart: Int64 = 0
        for segment in segments {
            guard segment.start == expectedStart, segment.start < segment.end,
                segment.written >= segment.start, segment.written <= segment.end
            else {
                throw .invalid("segment [\(segment.start), \(segment.end)) written to \(segment.written)")
            }
            expectedStart = segment.end
        }
        guard expectedStart == length else { throw .invalid("segments end at \(expectedStart), not \(length)") }
    }
}

/// Bounds-checked little-endian reads; running past `end` is `.truncated`.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    var end: Int

    init(bytes: [UInt8], offset: Int) {
        self.bytes = bytes
        self.offset = offset
        end = bytes.count
    }

    mutating func read<T: FixedWidthInteger>() throws(JournalError) -> T {
        let size = MemoryLayout<T>.size
        guard end - offset >= size else { throw .truncated }
        var value: T = 0
        for index in 0..<size { value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    mutating func readString() throws(JournalError) -> String {
        let count: UInt32 = try read()
        guard count <= Journal.maximumStringBytes else { throw .invalid("string of \(count) bytes") }
        guard end - offset >= Int(count) else { throw .truncated }
        // Strictly UTF-8: a lossy decode would turn damage into a different URL or validator.
        guard let text = String(validating: bytes[offset..<(offset + Int(count))], as: UTF8.self) else {
            throw .invalid("a string is not UTF-8")
        }
        offset += Int(count)
        return text
    }

    /// Version 4's flags and adopted state file: a name only (no `/`, not `.` or `..`), and an
    /// identity exactly when there is one.
    mutating func readAdoption(into journal: inout Journal) throws(JournalError) {
        let flags: UInt8 = try read()
        guard flags & ~1 == 0 else { throw .invalid("flags \(flags)") }
        journal.keptUnchecked = flags & 1 != 0
        let name = try readString()
        let (device, inode, size): (UInt64, UInt64, Int64) = (try read(), try read(), try read())
        if name.isEmpty {
            guard device == 0, inode == 0, size == 0 else { throw .invalid("an identity without a state file") }
            return
        }
        guard !name.utf8.contains(UInt8(ascii: "/")), name != ".", name != "..", size >= 0 else {
            throw .invalid("state file '\(name)'")
        }
        journal.adoptedState = Journal.AdoptedState(name: name, device: device, inode: inode, size: size)
    }

    /// Version 3: the ETag and Last-Modified, each empty when absent. Versions 1 and 2: a kind
    /// byte (0 none, 1 strong ETag, 2 Last-Modified) and its text, empty exactly for none.
    mutating func readValidator(version: UInt16) throws(JournalError) -> Validator? {
        if version >= 3 { return Validator(etag: try readString(), lastModified: try readString()) }
        let kind: UInt8 = try read()
        let text = try readString()
        switch kind {
        case 0 where text.isEmpty: return nil
        case 1 where !text.isEmpty: return .etag(text)
        case 2 where !text.isEmpty: return .lastModifiedWithETagUnknown(text)
        default: throw .invalid("validator kind \(kind)")
        }
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    mutating func appendString(_ text: String) {
        appendLittleEndian(UInt32(text.utf8.count))
        append(contentsOf: text.utf8)
    }

    mutating func appendValidator(_ validator: Validator?) {
        appendString(validator?.etag ?? "")
        appendString(validator?.lastModified ?? "")
    }
}
