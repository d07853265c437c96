import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Which names a queue's downloads claim: the one each saves to now. A name the server gave
/// is claimed once the download takes it (a later URL derived to it is refused), and the name
/// it had before is free again.
@Suite struct QueueNameClaimTests {
    @Test func aServersNameIsClaimedAndTheEarlierNameFreed() throws {
        let (named, plain) = (testBytes(count: 50_000, seed: 7), testBytes(count: 50_000, seed: 8))
        var given = TestFile(named)
        given.extraFields = ["Content-Disposition: attachment; filename=\"named.bin\""]
        let files = (given, TestFile(plain))
        let server = try TestServer { request in .file(request.target == "/x" ? files.0 : files.1) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try DownloadQueue(directory: directory.path, maximumActive: 2, options: testOptions(directory, segments: 1))
        let first = try queue.add(server.url("/x"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(first.state == .completed && first.destination == directory.file("named.bin"))
        // Another URL whose own name is the one the server gave: refused, the file stays.
        #expect { try queue.add(server.url("/other/named.bin")) } throws: { ($0 as? FastgetError)?.code == .cannotCreateOutput }
        // The name the first download had before its server named it is free.
        let second = try queue.add(server.url("/other/x"))
        #expect(queue.waitUntilIdle(timeout: 30))
        #expect(second.state == .completed)
        #expect(SHA256.hex(ofFile: directory.file("named.bin")) == SHA256.hex(named))
        #expect(SHA256.hex(ofFile: directory.file("x")) == SHA256.hex(plain))
    }
}
