@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A queue's file whose bytes are all in holds no slot while it syncs and is renamed: on a
/// disk the sync is most of a small file's time, and the next file downloads meanwhile.
@Suite struct QueueFinishingTests {
    @Test func theNextFileStartsWhileTheLastOneSyncs() throws {
        let (first, second) = (testBytes(count: 100_000, seed: 41), testBytes(count: 100_000, seed: 42))
        let server = try TestServer { request in
            .file(TestFile(request.target.hasSuffix("a.bin") ? first : second))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = 1
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 1, options: options, restore: false)
        let secondStarted = DispatchSemaphore(value: 0)
        queue.onEvent { download, event in
            if download.url.target.hasSuffix("b.bin"), case .stateChanged(.probing) = event { secondStarted.signal() }
        }
        // The first file's sync waits (at most 10 s) for the second file to start.
        let sawSecond = Locked<Bool?>(nil)
        let visibleBeforeSync = Locked(false)
        let (part, final) = (directory.file("a.bin.part"), directory.file("a.bin"))
        FaultInjection.beforeFinalSync(of: part) {
            // Handed off or not, nothing is under the final name before its sync.
            visibleBeforeSync.withLock { $0 = FileManager.default.fileExists(atPath: final) }
            sawSecond.withLock { $0 = secondStarted.wait(timeout: .now() + 10) == .success }
        }
        defer { FaultInjection.beforeFinalSync(of: part, nil) }
        _ = try queue.add(server.url("/a.bin"))
        _ = try queue.add(server.url("/b.bin"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(sawSecond.withLock { $0 } == true, "the second file waited for the first one's sync")
        #expect(!visibleBeforeSync.withLock { $0 }, "a.bin was there before its sync")
        #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(first))
        #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(second))
        #expect(queue.downloads.allSatisfy { $0.state == .completed })
    }

    /// Two entries whose server gives both one name: the second waits for the first one's
    /// rename (its lock), then replaces the file as asked, instead of failing on the lock.
    @Test func aSecondFileOfTheSameNameWaitsForTheFirstOnesRename() throws {
        let pair = try SameNamePair(seeds: (43, 44))
        let (directory, queue) = (pair.directory, pair.queue)
        defer { directory.remove() }
        let secondStarted = DispatchSemaphore(value: 0)
        let failures = Locked<[String]>([])
        queue.onEvent { download, event in
            if download.url.target.hasSuffix("b"), case .stateChanged(.probing) = event { secondStarted.signal() }
            if case .failed(let error) = event { failures.withLock { $0.append("\(download.url.target): \(error.message)") } }
        }
        let firstSync = Once()
        let part = directory.file("same.bin.part")
        FaultInjection.beforeFinalSync(of: part) {
            guard firstSync.take() else { return }
            _ = secondStarted.wait(timeout: .now() + 10) // the first file's sync, while the second probes
        }
        defer { FaultInjection.beforeFinalSync(of: part, nil) }
        try pair.expectBothComplete(failures: failures)
    }
}

/// A download that finds the name's lock held while its holder is finishing, and asks only
/// after the holder has let go, takes the lock: the holder was no other download saving it.
@Suite struct QueueLockRaceTests {
    @Test func aHolderThatEndsBetweenTheRefusalAndTheQuestionDoesNotFailTheSecond() throws {
        let pair = try SameNamePair(seeds: (47, 48))
        let (directory, queue) = (pair.directory, pair.queue)
        defer { directory.remove() }
        let refused = DispatchSemaphore(value: 0)
        let failures = Locked<[String]>([])
        queue.onEvent { download, event in
            if case .failed(let error) = event { failures.withLock { $0.append("\(download.url.target): \(error.message)") } }
        }
        // The first holds its sync until the second has found the lock held; the second then
        // waits for the first to end before it asks whether a finishing download holds it.
        let part = directory.file("same.bin.part")
        let (firstSync, firstRefusal) = (Once(), Once())
        FaultInjection.beforeFinalSync(of: part) {
            if firstSync.take() { _ = refused.wait(timeout: .now() + 10) } // not the second file's sync
        }
        defer { FaultInjection.beforeFinalSync(of: part, nil) }
        let lock = directory.file("same.bin.fastget.lock")
        FaultInjection.onLockRefused(of: lock) {
            guard firstRefusal.take() else { return }
            refused.signal()
            // Until the first has let go of the lock and left the finishing ones (10 s at most).
            let deadline = Date().addingTimeInterval(10)
            _ = Download.finishing.waitWhileHeld(lock, unless: { Date() > deadline ? "timed out" : nil })
        }
        defer { FaultInjection.onLockRefused(of: lock, nil) }
        try pair.expectBothComplete(failures: failures)
    }
}

/// A download waiting for a finishing one's lock obeys a pause at once (it does not spin on
/// the lock until the other lets go).
@Suite struct QueueLockWaitTests {
    @Test func aPauseWhileWaitingForTheNameStopsTheWait() throws {
        let pair = try SameNamePair(seeds: (45, 46))
        let (first, server, directory, queue) = (pair.first, pair.server, pair.directory, pair.queue)
        defer { directory.remove() }
        // The hook and the test each wait for the second's start: one semaphore each, so that
        // neither takes the other's signal.
        let (secondStarted, hookSawSecond) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let (secondPaused, go) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        queue.onEvent { download, event in
            guard download.url.target.hasSuffix("b") else { return }
            if case .stateChanged(.probing) = event {
                secondStarted.signal()
                hookSawSecond.signal()
            }
            if case .stateChanged(.paused) = event { secondPaused.signal() }
        }
        let part = directory.file("same.bin.part")
        FaultInjection.beforeFinalSync(of: part) {
            _ = hookSawSecond.wait(timeout: .now() + 10)
            _ = go.wait(timeout: .now() + 20) // held until the second has paused
        }
        defer { FaultInjection.beforeFinalSync(of: part, nil) }
        let waiting = DispatchSemaphore(value: 0)
        let lock = directory.file("same.bin.fastget.lock")
        FaultInjection.onLockWait(of: lock) { waiting.signal() }
        defer { FaultInjection.onLockWait(of: lock, nil) }
        let a = try queue.add(server.url("/a"))
        let b = try queue.add(server.url("/b"))
        #expect(secondStarted.wait(timeout: .now() + 10) == .success)
        #expect(waiting.wait(timeout: .now() + 10) == .success, "the second download never waited for the name")
        b.pause()
        #expect(secondPaused.wait(timeout: .now() + 10) == .success, "the waiting download did not pause: \(b.state)")
        go.signal()
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(a.state == .completed && b.state == .paused)
        #expect(SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(first))
    }
}

/// True the first time only.
final class Once: Sendable {
    private let first = Locked(true)

    func take() -> Bool {
        first.withLock { first in
            defer { first = false }
            return first
        }
    }
}

/// Two files, /a and /b, whose server names both `same.bin`, in a queue of one active download
/// that replaces what is there.
struct SameNamePair {
    let first: [UInt8]
    let second: [UInt8]
    let server: TestServer
    let directory: TemporaryDirectory
    let queue: DownloadQueue

    init(seeds: (UInt64, UInt64)) throws {
        (first, second) = (testBytes(count: 100_000, seed: seeds.0), testBytes(count: 100_000, seed: seeds.1))
        var (fileA, fileB) = (TestFile(first), TestFile(second))
        fileA.extraFields = ["Content-Disposition: attachment; filename=\"same.bin\""]
        fileB.extraFields = fileA.extraFields
        let files = (fileA, fileB)
        server = try TestServer { request in .file(request.target.hasSuffix("a") ? files.0 : files.1) }
        directory = try TemporaryDirectory()
        var options = DownloadOptions()
        (options.segments, options.replacesExistingFile) = (1, true)
        queue = try DownloadQueue(directory: directory.path, maximumActive: 1, options: options, restore: false)
    }

    /// Adds /a, then /b; expects both to complete (else shows `failures`) and the file to hold
    /// the second one's bytes.
    func expectBothComplete(failures: Locked<[String]>) throws {
        let downloads = [try queue.add(server.url("/a")), try queue.add(server.url("/b"))]
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(downloads.map(\.state) == [.completed, .completed], "\(failures.withLock { $0 })")
        #expect(SHA256.hex(ofFile: directory.file("same.bin")) == SHA256.hex(second))
    }
}
