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

    /// Another holder opens the file `acquire` just created, locks it first and lets go
    /// (removing it) before `acquire`'s own `flock`: that `flock` then locks a file with no
    /// name, which must not count as holding the lock at the path.
    @Test func aLockFileRemovedBeforeItsCreatorLocksItIsNotHeld() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("f.bin.fastget.lock")
        let interloper = Locked(false)
        FileLock.afterCreating(path) {
            FileLock.afterCreating(path, nil)
            if let other = try? FileLock.acquire(path) {
                interloper.withLock { $0 = true }
                other.release()
            }
        }
        defer { FileLock.afterCreating(path, nil) }
        let lock = try #require(try FileLock.acquire(path))
        defer { lock.release() }
        #expect(interloper.withLock { $0 }, "the other holder came in between")
        #expect(FileManager.default.fileExists(atPath: path), "the lock held is at its path")
        #expect(try FileLock.acquire(path) == nil, "and nobody else can take it")
    }
}
