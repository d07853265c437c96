@testable import Fastget
import Synchronization
import Testing

/// The per-host cap a session shares among its downloads' automatic connection counts.
@Suite struct SessionAllowanceTests {
    @Test func grantsNeverExceedTheCapAndReleasesFreeThem() throws {
        let session = try Session(maximumConnectionsPerHost: 6)
        #expect(session.reserveConnections(host: "a", wanting: 4) == 4)
        #expect(session.reserveConnections(host: "a", wanting: 4) == 2)
        #expect(session.reserveConnections(host: "a", wanting: 1) == 0)
        #expect(session.reserveConnections(host: "b", wanting: 6) == 6, "another host has its own cap")
        session.releaseConnections(host: "a", count: 3)
        #expect(session.reserveConnections(host: "a", wanting: 5) == 3)
    }

    @Test func concurrentReservationsStayWithinTheCap() throws {
        let session = try Session(maximumConnectionsPerHost: 16)
        let most = Atomic<Int>(0)
        let held = Atomic<Int>(0)
        let threads = try (0..<8).map { _ in
            try PosixThread {
                for _ in 0..<2000 {
                    let granted = session.reserveConnections(host: "h", wanting: 3)
                    let now = held.add(granted, ordering: .relaxed).newValue
                    most.max(now, ordering: .relaxed)
                    held.subtract(granted, ordering: .relaxed)
                    session.releaseConnections(host: "h", count: granted)
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(most.load(ordering: .relaxed) <= 16)
        #expect(session.reserveConnections(host: "h", wanting: 16) == 16, "every grant was given back")
    }

    @Test func aSpreadAllowanceTakesFromEachHostInTurnWithinItsCap() throws {
        let session = try Session(maximumConnectionsPerHost: 3)
        #expect(session.reserveConnections(host: "b", wanting: 1) == 1, "another download holds one of b's")
        let spread = SpreadAllowance([session.allowance(host: "a"), session.allowance(host: "b")])
        #expect(spread.reserve(4) == 4)
        #expect(session.reserveConnections(host: "a", wanting: 3) == 1, "a gave 2")
        session.releaseConnections(host: "a", count: 1)
        #expect(spread.reserve(4) == 1, "a's third; b is full")
        #expect(session.reserveConnections(host: "b", wanting: 1) == 0)
        spread.release(2)
        // Given back from the host holding the most: a (3 → 2), then a or b (2 each).
        #expect(session.reserveConnections(host: "a", wanting: 3) + session.reserveConnections(host: "b", wanting: 3) == 2)
        spread.release(10) // more than it holds: gives back only its own
        #expect(session.reserveConnections(host: "a", wanting: 3) + session.reserveConnections(host: "b", wanting: 3) == 3)
    }
}

/// Which downloads of a session may share a connection.
@Suite struct SessionRouteTests {
    @Test func connectionsThroughAProxyAreNeverSharedBetweenItsUsers() throws {
        let alice = try ProxySettings(explicit: "http://alice:one@proxy:3128", noProxy: nil, useEnvironment: false)
        let bob = try ProxySettings(explicit: "http://bob:two@proxy:3128", noProxy: nil, useEnvironment: false)
        let direct = try ProxySettings(explicit: nil, noProxy: nil, useEnvironment: false)
        #expect(alice.identity != bob.identity)
        #expect(alice.identity != direct.identity)
        let session = try Session()
        let options = DownloadOptions()
        #expect(session.route(for: options, proxies: alice).0 !== session.route(for: options, proxies: bob).0)
        #expect(session.route(for: options, proxies: alice).0 === session.route(for: options, proxies: alice).0)
        var insecure = options
        insecure.verifiesCertificates = false
        #expect(session.route(for: options, proxies: direct).0 !== session.route(for: insecure, proxies: direct).0)
    }
}
