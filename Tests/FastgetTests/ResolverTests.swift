@testable import Fastget
import Glibc
import Synchronization
import Testing

/// Name resolution runs on a helper thread so that the caller's wait has a bound.
@Suite struct ResolverTests {
    @Test func resolvesANameOnTheHelperThread() throws {
        let addresses = try Resolver.resolve(host: "localhost", port: 8080, deadline: MonotonicClock.seconds() + 10)
        #expect(addresses.map(\.description).contains("127.0.0.1"), "\(addresses)")
    }

    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", nil)])
    func convertsAddressLiteralsWithoutALookup(host: String, expected: String?) throws {
        let lookups = Atomic<Int>(0)
        let result = Result { () throws(ResolveError) in
            try Resolver.resolve(host: host, port: 80, deadline: MonotonicClock.seconds() + 10) { host, port in
                lookups.add(1, ordering: .relaxed)
                return Resolver.lookup(host: host, port: port)
            }
        }
        if let expected {
            #expect(try result.get().map(\.description) == [expected])
            #expect(lookups.load(ordering: .relaxed) == 0)
        } else {
            #expect(throws: ResolveError.self) { try result.get() }
        }
    }

    @Test func reportsAnUnknownNameFromTheHelperThread() throws {
        #expect {
            try Resolver.resolve(host: "no-such-host.invalid", port: 80, deadline: MonotonicClock.seconds() + 30)
        } throws: { error in
            guard let error = error as? ResolveError else { return false }
            return error.isNotFound && !error.timedOut && error.host == "no-such-host.invalid"
        }
    }

    @Test func passesTheLookupsAnswerOrErrorThrough() throws {
        let address = try #require(try Resolver.resolve(host: "::1", port: 443, deadline: MonotonicClock.seconds() + 10).first)
        let found = try Resolver.resolve(host: "example.test", port: 443, deadline: MonotonicClock.seconds() + 10) { host, port in
            host == "example.test" && port == 443 ? .success([address, address]) : .success([])
        }
        #expect(found.map(\.description) == ["::1", "::1"])
        #expect {
            try Resolver.resolve(host: "example.test", port: 443, deadline: MonotonicClock.seconds() + 10) { host, _ in
                .failure(ResolveError(host: host, code: EAI_AGAIN))
            }
        } throws: { error in
            (error as? ResolveError).map { $0.code == EAI_AGAIN && !$0.timedOut && !$0.isNotFound } ?? false
        }
    }

    /// A lookup that outlives its caller's deadline: the caller gets a timeout at once, and the
    /// lookup still finishes on its own thread (its result box is not freed under it).
    @Test func givesUpAtTheDeadlineAndLeavesTheLookupToFinishAlone() throws {
        let release = WakeSignal()
        let finished = WakeSignal()
        let started = MonotonicClock.seconds()
        #expect {
            try Resolver.resolve(host: "slow.example.test", port: 80, deadline: started + 0.2) { host, port in
                // Held until the test lets go (bounded, should the test fail first).
                release.wait(seconds: 30)
                defer { finished.signal() }
                return .failure(ResolveError(host: host, code: EAI_NONAME))
            }
        } throws: { error in
            guard let error = error as? ResolveError else { return false }
            return error.timedOut && !error.isNotFound && error.host == "slow.example.test"
        }
        #expect(MonotonicClock.seconds() - started < 10, "the wait is bounded by the deadline, not by the lookup")
        release.signal()
        #expect(finished.wait(seconds: 30), "the abandoned lookup ran to its end")
    }

    @Test func aLookupTimeoutIsATemporaryFailure() throws {
        let url = try HTTPURL("http://slow.example.test/f")
        let error = FastgetError.from(ResolveError.timeout(host: "slow.example.test"), url: url)
        #expect(error.code == .temporary && error.code == .temporary && error.isRetryable)
        #expect(error.message == "cannot resolve host 'slow.example.test' now: no answer within the connect timeout")
    }
}
