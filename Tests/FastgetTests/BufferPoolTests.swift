@testable import Fastget
import Glibc
import Testing

/// A list of small files makes a buffer pool per file: the memory of an ended pool serves the
/// next one, already mapped and faulted in.
@Suite struct BufferPoolTests {
    /// Minor page faults of this thread so far.
    static func faults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage) // RUSAGE_THREAD, which Glibc does not export
        return usage.ru_minflt
    }

    /// Writes a byte on every page of every buffer.
    static func touch(_ pool: BufferPool) {
        for index in 0..<pool.count {
            let buffer = pool.buffer(index)
            for offset in stride(from: 0, to: buffer.count, by: 4096) { buffer[offset] = 1 }
        }
    }

    @Test func aPoolOfTheSameSizeTakesTheEndedOnesPages() {
        // A size no other test uses: a pool made meanwhile elsewhere cannot take the spare.
        let (count, size) = (3, 40 * 1024 + 4096)
        BufferPoolTests.touch(BufferPool(count: count, size: size))
        let before = BufferPoolTests.faults()
        BufferPoolTests.touch(BufferPool(count: count, size: size))
        // 33 pages: a fresh mapping faults on each.
        #expect(BufferPoolTests.faults() - before < 4)
    }

    @Test func aLargePoolIsNotKept() {
        let bytes = 2 * BufferPool.Spares.largest
        _ = BufferPool(count: 2, size: BufferPool.Spares.largest)
        #expect(BufferPool.spares.take(bytes) == nil)
    }
}
