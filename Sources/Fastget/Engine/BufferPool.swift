/// Read buffers for the workers, carved from one allocation made before any transfer starts:
/// no allocation per read, and the memory bound is `count × size`, known up front.
///
/// An ended pool's allocation, when small, is kept for the next pool of the same size: each
/// file of a list has a pool, and would otherwise map, fault in and unmap its buffer (a few
/// tens of microseconds per file, more than its bytes cost to read).
final class BufferPool: @unchecked Sendable {
    let count: Int
    let size: Int
    private let memory: UnsafeMutableRawPointer

    init(count: Int, size: Int) {
        self.count = count
        self.size = size
        let bytes = count * size
        // Page-aligned so that each buffer starts on its own page.
        memory = BufferPool.spares.take(bytes) ?? .allocate(byteCount: bytes, alignment: 4096)
    }

    deinit {
        if !BufferPool.spares.keep(memory, bytes: count * size) { memory.deallocate() }
    }

    /// Buffer `index`; each worker owns exactly one index for the whole download.
    func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count)
        return UnsafeMutableRawBufferPointer(start: memory + index * size, count: size)
    }

    /// Allocations of ended pools, for the next pool of the same byte count.
    static let spares = Spares()

    /// At most `limit` allocations of at most `largest` bytes each: what a list running
    /// several small downloads at once holds between two files, and no more. A large pool
    /// (many connections, big buffers) is freed when it ends, as before.
    final class Spares: Sendable {
        static let limit = 16
        static let largest = 1 << 20

        private struct Spare: @unchecked Sendable {
            let memory: UnsafeMutableRawPointer
            let bytes: Int
        }

        private let kept = Locked<[Spare]>([])

        /// A kept allocation of exactly `bytes`, nil when there is none.
        func take(_ bytes: Int) -> UnsafeMutableRawPointer? {
            kept.withLock { kept in
                guard let index = kept.lastIndex(where: { $0.bytes == bytes }) else { return nil }
                return kept.remove(at: index).memory
            }
        }

        /// Keeps `memory` (`bytes` long, page-aligned) for a later pool; false when it is not
        /// kept and the caller frees it.
        func keep(_ memory: UnsafeMutableRawPointer, bytes: Int) -> Bool {
            guard bytes <= Spares.largest else { return false }
            return kept.withLock { kept in
                guard kept.count < Spares.limit else { return false }
                kept.append(Spare(memory: memory, bytes: bytes))
                return true
            }
        }
    }
}
