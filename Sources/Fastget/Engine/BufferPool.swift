/// Read buffers for the workers, carved from one allocation made before any transfer starts:
/// no allocation per read, and the memory bound is `count × size`, known up front.
final class BufferPool: @unchecked Sendable {
    let count: Int
    let size: Int
    private let memory: UnsafeMutableRawPointer

    init(count: Int, size: Int) {
        self.count = count
        self.size = size
        // Page-aligned so that each buffer starts on its own page.
        memory = .allocate(byteCount: count * size, alignment: 4096)
    }

    deinit { memory.deallocate() }

    /// Buffer `index`; each worker owns exactly one index for the whole download.
    func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
        precondition(index >= 0 && index < count)
        return UnsafeMutableRawBufferPointer(start: memory + index * size, count: size)
    }
}
