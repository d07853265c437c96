#if FASTGET_FAULTS
@testable import Fastget
import Glibc
import Testing

/// The `FASTGET_FAULTS` syntax (the injector itself runs in CLI processes: ChaosTests).
@Suite struct SyscallFaultsTests {
    typealias Configuration = SyscallFaults.Configuration
    typealias Target = SyscallFaults.Target

    @Test func readsSeedRateAndKinds() throws {
        let configuration = try Configuration(parsing: "seed=42,rate=0.02,kinds=eintr+short")
        #expect(configuration.seed == 42)
        #expect(configuration.rate == 0.02)
        #expect(configuration.kinds == [.eintr, .short])
        #expect(configuration.targets.isEmpty)
    }

    @Test func defaultsInjectNothingAtRandom() throws {
        let configuration = try Configuration(parsing: "fail=fdatasync@2")
        #expect(configuration.rate == 0)
        #expect(configuration.seed == 1)
        #expect(configuration.kinds == Set(SyscallFaults.Kind.allCases))
    }

    @Test func readsTargets() throws {
        let configuration = try Configuration(parsing: "fail=fdatasync@2,fail=splice-in:EINVAL,fail=pwrite@3+:ENOSPC,fail=rename@1:28")
        #expect(
            configuration.targets == [
                Target(site: .fdatasync, call: 2, onward: false, errno: EIO),
                Target(site: .spliceIn, call: 1, onward: true, errno: EINVAL),
                Target(site: .pwrite, call: 3, onward: true, errno: ENOSPC),
                Target(site: .rename, call: 1, onward: false, errno: ENOSPC),
            ])
        let third = configuration.targets[2]
        #expect(!third.matches(.pwrite, call: 2) && third.matches(.pwrite, call: 3) && third.matches(.pwrite, call: 9))
        #expect(!configuration.targets[0].matches(.fdatasync, call: 3))
    }

    @Test(arguments: [
        "rate=0.6", "rate=-1", "rate=x", "seed=-1", "kinds=eintr+bogus", "fail=nowhere", "fail=pwrite@0",
        "fail=pwrite:EWHAT", "fail=recv:EINTR", "fail=recv@2+:EINTR", "unknown=1", "seed",
        // Counted only: a fault there would never fire.
        "fail=lookup", "fail=unlink@2",
    ])
    func rejectsWhatItCannotRead(text: String) {
        #expect(throws: SyscallFaults.ParseError.self) { try Configuration(parsing: text) }
    }

    @Test func allowsEINTRForOneCall() throws {
        let configuration = try Configuration(parsing: "fail=recv@4:EINTR")
        #expect(configuration.targets == [Target(site: .recv, call: 4, onward: false, errno: EINTR)])
    }
}
#endif
