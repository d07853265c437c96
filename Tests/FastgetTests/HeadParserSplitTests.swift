@testable import Fastget
import Testing

/// Whatever a server sends, the parser's verdict does not depend on how the bytes arrive: 20,000
/// heads built at random from valid and hostile pieces (a wrong prefix, bare CR and LF, folded
/// lines, heads near the 64 KiB limit and the line limit) give the same head and count of
/// bytes consumed, or the same error, or the same need for more, fed whole, in random pieces,
/// and (below 4 KiB, to keep the test quick) a byte at a time.
@Suite struct HeadParserSplitTests {
    private static let pieces: [[UInt8]] = [
        "HTTP/1.1 200 OK\r\n", "HTTP/1.0 206 X\n", "Content-Length: 5\r\n", "\r\n", "\n", "\r", "X: y\r\n",
        " fold\r\n", "HTTX", "H", "TTP/", "a", "Content-Range: bytes 0-1/2\r\n", "HTTP/1.1 100 Continue\r\n",
    ].map { Array($0.utf8) }

    /// The verdict on `bytes` fed in pieces ending at `cuts` (then the rest).
    private func verdict(_ bytes: [UInt8], cuts: [Int]) -> String {
        var parser = HeadParser()
        var start = 0
        for end in cuts + [bytes.count] where end > start {
            do {
                if let (head, used) = try parser.feed(Array(bytes[start..<end])) {
                    return "head \(head.status) \(head.fields.map { "\($0.name)=\($0.value)" }) at \(start + used)"
                }
            } catch { return "error \(error)" }
            start = end
        }
        return "more"
    }

    @Test func theVerdictIsTheSameHoweverTheBytesArrive() {
        var random = SplitMix64(state: 0x4EAD) // SegmentPlanTests' generator: the same heads on every run
        for round in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) { bytes += Self.pieces.randomElement(using: &random)! }
            if round % 200 == 0 {
                bytes =
                    Array("HTTP/1.1 200 OK\r\nA: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 65_480...65_560, using: &random))
                    + Array("\r\n\r\n".utf8)
            }
            if round % 150 == 0 {
                let lines = Int.random(in: 98...103, using: &random)
                bytes = Array("HTTP/1.1 200 OK\r\n".utf8) + Array(repeating: Array("A: b\r\n".utf8), count: lines).flatMap { $0 } + Array("\r\n".utf8)
            }
            if Bool.random(using: &random) { bytes.append(UInt8.random(in: 0...255, using: &random)) }
            let whole = verdict(bytes, cuts: [])
            let cuts = (0..<Int.random(in: 1...4, using: &random)).map { _ in Int.random(in: 0...bytes.count, using: &random) }.sorted()
            #expect(verdict(bytes, cuts: cuts) == whole, "round \(round), cuts \(cuts)")
            if round % 10 == 0, bytes.count < 4096 { #expect(verdict(bytes, cuts: Array(0..<bytes.count)) == whole, "round \(round), byte by byte") }
        }
    }
}
