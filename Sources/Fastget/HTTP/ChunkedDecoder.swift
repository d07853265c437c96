/// Incremental decoder for `Transfer-Encoding: chunked` (RFC 9112 §7.1): chunk sizes, extensions
/// (skipped), data, the last chunk and trailer fields (skipped).
///
/// It decodes in place: `output` may be the same memory as `input` (data only ever moves towards
/// the front), so a body is read into the caller's buffer and de-framed there without a copy.
package struct ChunkedDecoder: Sendable {
    package static let maximumExtensionBytes = 4096
    package static let maximumTrailerBytes = 64 * 1024

    private enum State: Sendable {
        case size(value: Int64, digits: Int)
        case sizeLineEnd
        case extensionText(length: Int)
        case data(remaining: Int64)
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerLine
        case trailerLineEnd(empty: Bool)
        case done
    }

    private var state: State = .size(value: 0, digits: 0)
    private var trailerBytes = 0

    package init() {}

    /// Whether the last chunk and the trailer section have been read.
    package var isDone: Bool { if case .done = state { true } else { false } }

    /// Decodes from `input` into `output` (which may alias `input` at the same or a lower address).
    /// - Returns: bytes of `input` consumed, and bytes of data written to `output`. Stops at the
    ///   end of the body; bytes after it are not consumed.
    package mutating func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) throws(HTTPParseError) -> (
        consumed: Int, produced: Int
    ) {
        var index = 0
        var produced = 0
        let count = input.count
        while index < count {
            if case .done = state { break }
            if case .data(let remaining) = state {
                let run = Int(min(remaining, Int64(count - index)))
                (output + produced).copyMemory(from: input.baseAddress! + index, byteCount: run) // memmove: `output` may overlap
                produced += run
                index += run
                state = remaining == Int64(run) ? .dataCR : .data(remaining: remaining - Int64(run))
                continue
            }
            let byte = input[index]
            index += 1
            try step(byte)
        }
        return (index, produced)
    }

    private mutating func step(_ byte: UInt8) throws(HTTPParseError) {
        switch state {
        case .size(let value, let digits):
            if let digit = hexValue(byte) {
                guard digits < 15 else { throw .invalidChunkSize }
                state = .size(value: value << 4 | Int64(digit), digits: digits + 1)
            } else {
                guard digits > 0 else { throw .invalidChunkSize }
                switch byte {
                case 0x0D: state = .sizeLineEnd; pendingSize = value
                case 0x0A: pendingSize = value; endSizeLine()
                case 0x3B, 0x20, 0x09: state = .extensionText(length: 0); pendingSize = value
                default: throw .invalidChunkSize
                }
            }
        case .extensionText(let length):
            switch byte {
            case 0x0D: state = .sizeLineEnd
            case 0x0A: endSizeLine()
            default:
                guard length < ChunkedDecoder.maximumExtensionBytes else { throw .chunkExtensionTooLong }
                state = .extensionText(length: length + 1)
            }
        case .sizeLineEnd:
            guard byte == 0x0A else { throw .malformedChunk }
            endSizeLine()
        case .dataCR:
            switch byte {
            case 0x0D: state = .dataLF
            case 0x0A: state = .size(value: 0, digits: 0)
            default: throw .malformedChunk
            }
        case .dataLF:
            guard byte == 0x0A else { throw .malformedChunk }
            state = .size(value: 0, digits: 0)
        case .trailerLineStart:
            try countTrailer()
            switch byte {
            case 0x0D: state = .trailerLineEnd(empty: true)
            case 0x0A: state = .done
            default: state = .trailerLine
            }
        case .trailerLine:
            try countTrailer()
            switch byte {
            case 0x0D: state = .trailerLineEnd(empty: false)
            case 0x0A: state = .trailerLineStart
            default: break
            }
        case .trailerLineEnd(let empty):
            guard byte == 0x0A else { throw .malformedChunk }
            state = empty ? .done : .trailerLineStart
        case .data, .done:
            break
        }
    }

    private var pendingSize: Int64 = 0

    private mutating func endSizeLine() {
        state = pendingSize == 0 ? .trailerLineStart : .data(remaining: pendingSize)
    }

    private mutating func countTrailer() throws(HTTPParseError) {
        trailerBytes += 1
        if trailerBytes > ChunkedDecoder.maximumTrailerBytes { throw .trailersTooLarge }
    }
}
