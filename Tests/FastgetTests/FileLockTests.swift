import FastgetTestSupport
import Foundation
import Synchronization
import Testing

@testable import Fastget

/// `FileLock` excludes every other holder, whether it created the lock file (and skips the
/// check that the file is still at its name) or opened one another holder is about to remove.
@Suite struct FileLockTests {
    @Test func twoHoldersNeverHoldTheLockAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("f.bin.fastget.lock")
        let holders = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let taken = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2000 {
                guard let lock = try? FileLock.acquire(path) else { continue }
                if holders.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue != 1 {
                    overlaps.wrappingAdd(1, ordering: .relaxed)
                }
                taken.wrappingAdd(1, ordering: .relaxed)
                holders.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                lock.release()
            }
        }
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(taken.load(ordering: .relaxed) > 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the last holder removed it")
    }
}
