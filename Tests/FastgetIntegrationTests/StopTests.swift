import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// A pause or cancel reaches every connection a download waits on, whatever it is waiting for.
@Suite struct StopTests {
    let data = testBytes(count: 1 << 20, seed: 1320)

    func options(_ directory: TemporaryDirectory) -> DownloadOptions {
        var options = DownloadOptions()
        options.output = directory.file("f.bin")
        options.segments = 4
        options.minimumSegmentSize = 128 * 1024
        options.stealsWork = false
        options.hedgesTails = false
        options.ioTimeout = .seconds(60) // a stop must not wait for it
        return options
    }

    /// Waits (bounded) until `condition` holds.
    func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(2000)
        }
        return true
    }

    @Test func aPauseStopsAProbeThatIsWaitingForAnAnswer() throws {
        let server = try TestServer { _ in .hang }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url(), options: options(directory))
        download.start()
        #expect(eventually(within: 10) { !server.requests.isEmpty })
        download.pause()
        #expect(eventually(within: 5) { download.state == .paused })
        download.cancel()
    }

    @Test func aPauseStopsATLSHandshakeThatIsWaitingForTheServer() throws {
        let server = try TestServer(TestServer.Configuration(stalledHandshake: .silent)) { _ in .status(500) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = options(directory)
        options.connectionTimeout = .seconds(60) // a stop must not wait for it
        options.verifiesCertificates = false
        let download = try Download(url: server.url(), options: options)
        download.start()
        #expect(eventually(within: 10) { server.connectionCount >= 1 })
        download.pause()
        #expect(eventually(within: 5) { download.state == .paused })
        download.cancel()
    }

    @Test func aPauseStopsTheReResolutionOfAnExpiredRedirect() throws {
        // `/file` redirects to `/signed`, which serves two ranges and then answers 403; asked
        // again, `/file` never answers.
        let file = TestFile(data)
        let state = Locked((resolutions: 0, served: 0))
        let server = try TestServer { request in
            if request.target == "/file" {
                let first = state.withLock { state -> Bool in
                    state.resolutions += 1
                    return state.resolutions == 1
                }
                return first ? .redirect(status: 302, location: "/signed") : .hang
            }
            let fresh = state.withLock { state -> Bool in
                if request.method == "GET" { state.served += 1 }
                return state.served <= 2
            }
            return fresh ? .file(file) : .status(403, body: "expired")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let download = try Download(url: server.url("/file"), options: options(directory))
        download.start()
        #expect(eventually(within: 10) { state.withLock { $0.resolutions } >= 2 })
        download.pause()
        #expect(eventually(within: 5) { download.state == .paused })
        download.cancel()
    }
}
