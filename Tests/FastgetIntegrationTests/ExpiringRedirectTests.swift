import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// A CDN hands out signed URLs that expire: the redirect target starts answering 403 or 410
/// mid-download. fastget resolves the original URL again, once per expiry, and continues.
@Suite struct ExpiringRedirectTests {
    let data = testBytes(count: 1 << 20, seed: 43)

    /// `/file` redirects to `/signed/G` for the current generation G. A target serves two range
    /// requests, then expires: the generation moves on and the old target answers `status`.
    /// With `renew == false` the new targets are expired from the start.
    /// With `changedTo`, targets after the first serve that file instead (another version).
    func server(expiredStatus status: Int, renew: Bool = true, changedTo other: [UInt8]? = nil) throws -> TestServer {
        let file = TestFile(data)
        let second =
            other.map { bytes in
                var changed = TestFile(bytes)
                changed.etag = "\"fastget-test-2\""
                return changed
            } ?? file
        let state = Locked((generation: 1, served: 0))
        return try TestServer { request in
            if request.target == "/file" {
                let generation = state.withLock { $0.generation }
                return .redirect(status: 302, location: "/signed/\(generation)")
            }
            guard let asked = Int(request.target.split(separator: "/").last ?? "") else { return .status(404) }
            let current = state.withLock { state -> Bool in
                guard asked == state.generation else { return false }
                if request.method == "GET" {
                    if state.served == 2 || (!renew && asked > 1) {
                        state.generation += 1
                        state.served = 0
                        return false
                    }
                    state.served += 1
                }
                return true
            }
            return current ? .file(asked == 1 ? file : second) : .status(status, body: "expired")
        }
    }

    func options(_ directory: TemporaryDirectory) -> DownloadOptions {
        var options = DownloadOptions()
        options.segments = 4
        options.minimumSegmentSize = 128 * 1024
        options.stealsWork = false
        options.hedgesTails = false
        options.output = directory.file("f.bin")
        return options
    }

    @Test(arguments: [403, 410])
    func reResolvesTheOriginalURLWhenTheTargetExpires(status: Int) throws {
        let server = try server(expiredStatus: status)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let report = try Download(url: server.url("/file"), options: options(directory)).run()
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(data))
        #expect(report.retries == 0, "an expired target is not a failure")

        let requests = server.requests
        // The probe's GET, then one re-resolution (a HEAD) of the original URL.
        #expect(requests.filter { $0.target == "/file" }.map(\.method) == ["GET", "HEAD"])
        // Two ranges from the first target (the first of them the probe's own GET, from byte 0),
        // the other two from the second, each with If-Range: the same file. (A worker that
        // starts after the re-resolution asks the second target first; the others asked the
        // first one and were refused.)
        let served = requests.filter { $0.method == "GET" && $0.target.hasPrefix("/signed/") }
        #expect((3...4).contains(served.filter { $0.target == "/signed/1" }.count))
        #expect(served.filter { $0.target == "/signed/2" }.count == 2)
        #expect(served.filter { $0.header("Range") != "bytes=0-" }.allSatisfy { $0.header("If-Range") == "\"fastget-test-1\"" })
        #expect(served.first?.header("Range") == "bytes=0-" && served.first?.target == "/signed/1")
    }

    @Test func startsOverWhenTheNewTargetIsAnotherVersion() throws {
        let other = testBytes(count: 1 << 20, seed: 44)
        let server = try server(expiredStatus: 403, changedTo: other)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var notices: [String] = []
        _ = try Download(url: server.url("/file"), options: options(directory)).run(notice: { notices.append($0) })
        #expect(SHA256.hex(ofFile: directory.file("f.bin")) == SHA256.hex(other))
        #expect(notices.count == 1 && notices[0].hasPrefix("the file changed on the server"), "\(notices)")
    }

    @Test func stopsWithAccessDeniedWhenTheNewTargetIsRefusedToo() throws {
        let server = try server(expiredStatus: 403, renew: false)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect {
            try Download(url: server.url("/file"), options: options(directory)).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.code == .accessDenied && error.message.hasPrefix("server answered 403 ")
                && error.message.hasSuffix("/signed/2") && error.hint?.hasPrefix("run the download again to resume") == true
        }
        // Re-resolved once, not in a loop.
        #expect(server.requests.filter { $0.target == "/file" }.count == 2)
        #expect(FileManager.default.fileExists(atPath: directory.file("f.bin.fastget")))
    }
}
