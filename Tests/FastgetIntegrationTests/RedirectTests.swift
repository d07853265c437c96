@testable import Fastget
import FastgetTestSupport
import Foundation
import Synchronization
import Testing

private let data = testBytes(count: (1 << 20) + 3)

/// Redirects: chains, loops, the hop limit, and credentials kept to their own host.
@Suite struct RedirectTests {
    @Test func followsRedirectChainsAndFetchesRangesFromTheFinalURL() throws {
        let server = try TestServer { request in
            switch request.target {
            case "/start": .redirect(status: 301, location: "http://127.0.0.1:\(request.header("Host")!.split(separator: ":")[1])/a/one")
            case "/a/one": .redirect(status: 302, location: "two")
            case "/a/two": .redirect(status: 307, location: "../b/final.bin")
            case "/b/final.bin": .file(TestFile(data))
            default: .status(404)
            }
        }
        let (result, directory, output) = try download(server.url("/start"), segments: 2)
        defer { directory.remove() }
        let report = try result.get()
        #expect(report.resource.url.target == "/b/final.bin")
        #expect(SHA256.hex(ofFile: output) == SHA256.hex(data))
        // The probe's GET (bytes=0-) followed the chain; every other range went to the final URL.
        #expect(server.requests.filter { $0.header("Range") != nil && $0.header("Range") != "bytes=0-" }.allSatisfy { $0.target == "/b/final.bin" })
        #expect(server.requests.map(\.target).prefix(4) == ["/start", "/a/one", "/a/two", "/b/final.bin"])
    }

    @Test func detectsRedirectLoops() throws {
        let server = try TestServer { request in
            .redirect(status: 302, location: request.target == "/a" ? "/b" : "/a")
        }
        let (result, directory, _) = try download(server.url("/a"))
        defer { directory.remove() }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.message.contains("redirect loop") && error.code == .protocolViolation)
    }

    @Test func followsTwentyRedirectsByDefaultAndMaximumRedirectsWhenSet() throws {
        let server = try TestServer { request in
            let hop = Int(request.target.dropFirst()) ?? 0
            return hop == 21 ? .file(TestFile(data)) : .redirect(status: 308, location: "/\(hop + 1)")
        }
        let (tooMany, directory, _) = try download(server.url("/0"))
        defer { directory.remove() }
        guard case .failure(let error) = tooMany else { Issue.record("expected a failure"); return }
        #expect(error.message.contains("more than 20 redirects") && error.code == .protocolViolation, "\(error.message)")
        #expect(error.remedy == .followMoreRedirects && error.hint == "raise maximumRedirects to follow more")
        let (twentyHops, other, _) = try download(server.url("/1"))
        defer { other.remove() }
        #expect(throws: Never.self) { try twentyHops.get() }
        let (allowed, third, _) = try download(server.url("/0")) { $0.maximumRedirects = 21 }
        defer { third.remove() }
        #expect(throws: Never.self) { try allowed.get() }
        let (none, fourth, _) = try download(server.url("/20")) { $0.maximumRedirects = 0 }
        defer { fourth.remove() }
        guard case .failure(let refused) = none else { Issue.record("expected a failure"); return }
        #expect(refused.message.hasPrefix("more than 0 redirects, last to "), "\(refused.message)")
    }

    @Test func sendsCredentialsOnlyToTheirOwnHost() throws {
        let server = try TestServer { request in
            // 127.0.0.1 → localhost is another host for credentials, though the same server.
            request.header("Host")!.hasPrefix("127.0.0.1")
                ? BasicGuard(user: "user", password: "secret").check(request)
                    ?? .redirect(status: 302, location: "http://localhost:\(request.header("Host")!.split(separator: ":")[1])/f")
                : .file(TestFile(Array(data.prefix(10))))
        }
        let url = "http://user:secret@127.0.0.1:\(server.port)/f"
        let (result, directory, _) = try download(url)
        defer { directory.remove() }
        _ = try result.get()
        let requests = server.requests
        // Asked for by the first origin's 401, and sent there only.
        #expect(requests.prefix(2).map { $0.header("Authorization") } == [nil, "Basic dXNlcjpzZWNyZXQ="])
        #expect(requests.count > 2 && requests.dropFirst(2).allSatisfy { $0.header("Authorization") == nil })
    }
}
