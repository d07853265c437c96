import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// The whole file's digest a server announces (`Repr-Digest`, `Digest`) is checked like
/// `--checksum`: a mismatch keeps `NAME.part` and exits 76.
@Suite struct ServerDigestTests {
    let data = testBytes(count: (3 << 20) + 7, seed: 61)

    /// The SHA-256 of `bytes` in base64, as a header carries it.
    func base64SHA256(_ bytes: [UInt8]) -> String {
        let hex = Array(SHA256.hex(bytes).utf8)
        let raw = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return Data(raw).base64EncodedString()
    }

    func run(_ field: String, _ arguments: [String]) throws -> (ProcessResult, TemporaryDirectory) {
        var file = TestFile(data)
        file.extraFields = [field]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        let result = try runProcess(try fastgetExecutable(), arguments + ["-o", "d.bin", server.url()], in: directory.path, timeout: 60)
        return (result, directory)
    }

    @Test(arguments: ["-n 1", "-n 4"])
    func aMatchingReprDigestOrDigestPasses(segments: String) throws {
        for field in ["Repr-Digest: sha-256=:\(base64SHA256(data)):", "Digest: SHA-256=\(base64SHA256(data))"] {
            let (result, directory) = try run(field, ["-q", "--json"] + segments.split(separator: " ").map(String.init))
            defer { directory.remove() }
            #expect(result.status == 0, "\(field): \(result.stderr)")
            #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
            #expect(result.stdout.contains("\"sha256\":\"\(SHA256.hex(data))\""), "the done event names what was checked: \(result.stdout)")
        }
    }

    @Test func aWrongDigestFailsWith76AndKeepsThePart() throws {
        let wrong = base64SHA256(Array(data.dropLast()))
        for (field, name) in [("Repr-Digest: sha-256=:\(wrong):", "Repr-Digest"), ("Digest: SHA-256=\(wrong)", "Digest")] {
            let (result, directory) = try run(field, ["-q", "-n", "2"])
            defer { directory.remove() }
            #expect(result.status == 76, "\(field): \(result.stderr)")
            #expect(result.stderr.hasPrefix("fastget: error: sha-256 of d.bin.part is \(SHA256.hex(data)), not "), "\(result.stderr)")
            #expect(result.stderr.contains("(the server's \(name))"), "\(result.stderr)")
            #expect(SHA256.hex(ofFile: directory.file("d.bin.part")) == SHA256.hex(data))
            #expect(!FileManager.default.fileExists(atPath: directory.file("d.bin")))
        }
    }

    @Test func checksumWinsAndTheCheckCanBeTurnedOff() throws {
        let wrong = "Repr-Digest: sha-256=:\(base64SHA256(Array(data.dropLast()))):"
        let (asked, first) = try run(wrong, ["-q", "--checksum", "sha-256=\(SHA256.hex(data))"])
        defer { first.remove() }
        #expect(asked.status == 0, "--checksum is what is checked: \(asked.stderr)")
        let (off, second) = try run(wrong, ["-q", "--no-server-digest"])
        defer { second.remove() }
        #expect(off.status == 0, "\(off.stderr)")
        #expect(SHA256.hex(ofFile: second.file("d.bin")) == SHA256.hex(data))
    }

    @Test func theStreamToStandardOutputIsCheckedToo() throws {
        let wrong = "Repr-Digest: sha-256=:\(base64SHA256(Array(data.dropLast()))):"
        let (result, directory) = try run(wrong, ["-q", "-n", "2", "-o", "-"])
        defer { directory.remove() }
        #expect(result.status == 76, "\(result.stderr)")
        #expect(result.stderr.contains("of the stream is \(SHA256.hex(data)), not"), "\(result.stderr)")
    }

    @Test func theProbeReportsTheMirrorsTheServerAnnounces() throws {
        var file = TestFile(data)
        file.extraFields = ["Link: </m/d.bin>; rel=duplicate; pri=2, <http://127.0.0.1:9/d.bin>; rel=duplicate; pri=1; geo=de"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("d.bin")
        options.mirrorsFromHeaders = false
        let report = try Download(url: server.url(), options: options).run()
        #expect(report.resource.announcedMirrors.map(\.url.description) == ["http://127.0.0.1:9/d.bin", server.url("/m/d.bin")])
        #expect(report.resource.announcedMirrors.first?.geo == "de")
        // Reported; with mirrorsFromHeaders off, not used: every request went to the URL given.
        #expect(server.requests.allSatisfy { $0.target != "/m/d.bin" })
        #expect(SHA256.hex(ofFile: directory.file("d.bin")) == SHA256.hex(data))
    }

    /// `-c` on a file of the server's length but other bytes is not "already complete" when a
    /// digest says otherwise, and `done` names a digest only when one was checked.
    @Test func aCompleteLengthIsCheckedAgainstTheDigest() throws {
        var other = data
        other[1000] ^= 0xFF
        let field = "Repr-Digest: sha-256=:\(base64SHA256(data)):"
        var file = TestFile(data)
        file.extraFields = [field]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(other).write(to: URL(fileURLWithPath: directory.file("c.bin")))
        let wrong = try runProcess(try fastgetExecutable(), ["-c", "-o", "c.bin", server.url()], in: directory.path, timeout: 60)
        #expect(wrong.status == 76, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("c.bin has the server's length, but its sha-256 is"), "\(wrong.stderr)")
        try Data(data).write(to: URL(fileURLWithPath: directory.file("c.bin")))
        let right = try runProcess(try fastgetExecutable(), ["--json", "-c", "-o", "c.bin", server.url()], in: directory.path, timeout: 60)
        #expect(right.status == 0 && right.stdout.contains("\"sha256\":\"\(SHA256.hex(data))\""), "\(right.stdout)")
        let unchecked = try runProcess(
            try fastgetExecutable(), ["--json", "--no-server-digest", "--overwrite", "-o", "c.bin", server.url()], in: directory.path, timeout: 60)
        #expect(unchecked.status == 0 && !unchecked.stdout.contains("sha256"), "nothing was checked: \(unchecked.stdout)")
    }
}
