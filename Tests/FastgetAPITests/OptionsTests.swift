import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// The options an embedder sets: rate limit and checksum.
@Suite struct OptionsTests {
    let data = testBytes(count: 2 << 20, seed: 71)

    @Test func aRateLimitHoldsForTheWholeDownload() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.rateLimit = 1 << 20 // 1 MiB/s over all four connections
        let started = Date()
        let report = try Download(url: server.url("/f.bin"), options: options).run()
        let seconds = Date().timeIntervalSince(started)
        #expect(report.workers == 4)
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        // 2 MiB at 1 MiB/s: about 2 s, whatever the connections could do (a loose lower bound).
        #expect(seconds >= 1.5, "\(seconds) s")
    }

    @Test func aMatchingChecksumCompletes() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.checksum = try Checksum("SHA-256=" + SHA256.hex(data).uppercased())
        try Download(url: server.url("/f.bin"), options: options).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
    }

    @Test func aWrongChecksumKeepsThePartFileAndFailsWith76() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = testOptions(directory)
        options.checksum = try Checksum("md5=" + String(repeating: "0", count: 32))
        let download = try Download(url: server.url("/f.bin"), options: options)
        #expect {
            try download.run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.code == .protocolViolation && error.message.hasPrefix("md5 of \(directory.file("f.bin.part")) is ")
                && error.message.hasSuffix(", not 00000000000000000000000000000000")
        }
        #expect(download.state == .failed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["f.bin.part"])
        #expect(SHA256.hex(ofFile: directory.file("f.bin.part")) == SHA256.hex(data))
    }

    @Test(arguments: ["sha-256", "crc32=abcd", "sha-1=12", "md5=zz000000000000000000000000000000"])
    func malformedChecksumsAreUsageErrors(text: String) {
        #expect { try Checksum(text) } throws: { ($0 as? FastgetError)?.code == .usage }
    }

    @Test func checksumsParseInEveryForm() throws {
        let hex = String(repeating: "a", count: 40)
        #expect(try Checksum("sha1=" + hex).description == "sha-1=" + hex)
        #expect(try Checksum("SHA-1=" + hex.uppercased()).description == "sha-1=" + hex)
    }

    /// Embedders' code written with the options' earlier names still compiles and means the same.
    @available(*, deprecated, message: "uses the options' earlier names on purpose")
    @Test func theEarlierOptionNamesStillWork() {
        var options = DownloadOptions()
        (options.overwrite, options.noClobber, options.stealing, options.hedging, options.insecure) = (true, true, false, false, true)
        #expect(options.replacesExistingFile && options.keepsExistingFile && !options.stealsWork && !options.hedgesTails)
        #expect(!options.verifiesCertificates && options.insecure)
        options.verifiesCertificates = true
        #expect(!options.insecure)
        options.headers = [("X-A", "1"), ("X-B", "a\r\nX-C: 2")]
        #expect(options.headerFields.map(\.name) == ["X-A", "X-B"] && options.headers.map(\.value) == ["1", "a\r\nX-C: 2"])
        #expect { try Download(url: "http://127.0.0.1:1/f", options: options) } throws: {
            ($0 as? FastgetError)?.message == "the X-B field contains a line break or NUL byte"
        }
    }

    /// A field that could end itself and smuggle in another cannot be made at all.
    @Test func aHeaderFieldCannotHoldALineBreak() throws {
        for value in ["a\r\nX-C: 2", "a\nb", "a\u{0}b", "a\u{7F}"] {
            #expect(throws: FastgetError.self) { try HeaderField(name: "X-A", value: value) }
        }
        #expect(throws: FastgetError.self) { try HeaderField(name: "Range", value: "bytes=0-") }
        #expect(throws: FastgetError.self) { try HeaderField(name: "X A", value: "1") }
        let field = try HeaderField(name: "X-Trace", value: "a\tb")
        #expect(field.name == "X-Trace" && field.value == "a\tb")
        var options = DownloadOptions()
        options.headerFields = [field, try HeaderField(name: "User-Agent", value: "")]
        #expect(throws: Never.self) { try Download(url: "http://127.0.0.1:1/f", options: options) }
    }

    @Test func aChecksumIsMadeFromItsAlgorithmAndDigest() throws {
        let hex = String(repeating: "ab", count: 32)
        #expect(try Checksum(.sha256, hex: hex.uppercased()) == Checksum("sha-256=" + hex))
        #expect(Checksum(.sha256, bytes: [UInt8](repeating: 0xAB, count: 32)) == (try Checksum(.sha256, hex: hex)))
        #expect(Checksum(.sha256, bytes: [0xAB]) == nil)
        #expect(throws: FastgetError.self) { try Checksum(.sha1, hex: hex) } // 64 digits for a 40-digit digest
        #expect(throws: FastgetError.self) { try Checksum(.md5, hex: String(repeating: "g", count: 32)) }
    }
}
