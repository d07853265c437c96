import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Where `splice` is refused (EINVAL), a worker copies one buffer instead; a steal that lands
/// while that read waits moves the segment's end down, and the bytes past the new end belong
/// to the thief: the worker must not write them.
@Suite struct SpliceFallbackTests {
    static let third = 1 << 20
    static let data = testBytes(count: 3 * third, seed: 0xFA11_BAC4)

    /// Three segments. The first is served at once; the second and third answer with a head and
    /// then wait, so their workers sit in the fallback read (every socket-to-pipe splice fails)
    /// while the first worker, idle, steals the second's tail (all but a few KiB, since nothing
    /// came from it) and then the third's. Only then, when the thief has written the stolen
    /// tail, does the second answer, with the right bytes up to where the steal cut it and
    /// garbage after: a victim that wrote past its new end would overwrite the thief's bytes.
    @Test func fallbackCopyStopsAtAnEndAStealMovedDown() throws {
        let third = SpliceFallbackTests.third
        let data = SpliceFallbackTests.data
        let file = TestFile(data)
        let stolenAt = Locked<Int?>(nil)
        let release = DispatchSemaphore(value: 0)
        @Sendable func head(_ first: Int, _ last: Int) -> [UInt8] {
            Array(
                ("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(first)-\(last)/\(data.count)\r\n"
                    + "Content-Length: \(last - first + 1)\r\nETag: \(file.etag!)\r\nLast-Modified: \(file.lastModified!)\r\n"
                    + "Accept-Ranges: bytes\r\n\r\n").utf8)
        }
        let server = try TestServer { request in
            guard request.method == "GET", let value = request.header("Range"), value.hasPrefix("bytes="),
                let first = Int(value.dropFirst(6).prefix { $0 != "-" })
            else { return .file(file) }
            switch first {
            case third:
                return .staged(
                    head: head(third, 2 * third - 1),
                    rest: {
                        _ = release.wait(timeout: .now() + 20)
                        let cut = stolenAt.withLock { $0 } ?? 2 * third
                        return Array(data[third..<cut]) + [UInt8](repeating: 0xEE, count: 2 * third - cut)
                    })
            case 2 * third:
                return .staged(
                    head: head(2 * third, 3 * third - 1),
                    rest: {
                        _ = release.wait(timeout: .now() + 20)
                        return Array(data[(2 * third)...])
                    })
            case third + 1..<2 * third:
                stolenAt.withLock { $0 = first }
            case 2 * third + 1..<3 * third:
                // The thief is done with the second segment's tail: let the stalled ones go on.
                release.signal()
                release.signal()
            default:
                break
            }
            return .file(file)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-q", "-n", "3", "--timeout", "30", "-o", "f.bin", server.url()]
        let run = try FaultRun("fail=splice-in:EINVAL", arguments, in: directory.path)
        try run.requireInjector()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.count("fail-splice-in") >= 3)
        #expect(stolenAt.withLock { $0 } != nil, "the second segment's tail was never stolen")
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }
}
