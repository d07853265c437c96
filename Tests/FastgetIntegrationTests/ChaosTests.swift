@testable import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// "Never a wrong file": many command-line downloads under random system-call faults (EINTR,
/// short reads and writes, dropped connections, failed writes, syncs, renames; see
/// Posix/SyscallFaults.swift), each with its own seed. Every run must end either with exit 0
/// and exactly the right bytes, or with a documented exit code, its journal (when there is
/// one) claiming only bytes that are in the `.part` file; and then the same command without
/// faults must finish the file byte-identical.
@Suite(.serialized) struct ChaosTests {
    static let size = 4 << 20
    static let data = testBytes(count: size, seed: 0xC4A0_5EED)
    /// The README's exit codes for failures (sysexits).
    static let documentedFailures: Set<Int32> = [64, 66, 69, 73, 74, 75, 76, 77]
    /// 36 runs from seed 1; FASTGET_CHAOS_RUNS and FASTGET_CHAOS_SEED explore further.
    static let runs = Int(ProcessInfo.processInfo.environment["FASTGET_CHAOS_RUNS"] ?? "") ?? 36
    static let firstSeed = Int(ProcessInfo.processInfo.environment["FASTGET_CHAOS_SEED"] ?? "") ?? 1

    /// The faults of run `seed`: a quarter only the kinds that must stay invisible (exit 0
    /// required), a quarter those plus dropped connections, a quarter every kind at random,
    /// and a quarter invisible ones plus one failure aimed at an operation that random faults
    /// reach seldom (a download makes few syncs and renames, and one ftruncate), or a splice
    /// refused with EINVAL (the worker goes on copying: exit 0 required).
    static func faults(seed: Int) -> (spec: String, mustSucceed: Bool) {
        switch seed % 4 {
        case 0: return ("seed=\(seed),rate=0.05,kinds=eintr+short", true)
        case 1: return ("seed=\(seed),rate=0.02,kinds=eintr+short+reset", false)
        case 2: return ("seed=\(seed),rate=0.02", false)
        default:
            let sites = ["fdatasync", "fsync", "rename", "ftruncate", "pwrite", "splice", "splice-in"]
            let site = sites[(seed / 4) % sites.count]
            let call = site == "ftruncate" ? 1 : 1 + (seed / 28) % 8
            let code = site == "splice-in" ? "EINVAL" : seed % 8 < 4 ? "EIO" : "ENOSPC"
            return ("seed=\(seed),rate=0.02,kinds=eintr+short,fail=\(site)@\(call):\(code)", site == "splice-in")
        }
    }

    @Test func everyRunUnderRandomFaultsEndsRightOrResumable() throws {
        let data = ChaosTests.data
        let expected = SHA256.hex(data)
        // 4 segments at 4 MiB/s each: a quarter of a second, with a checkpoint every 20 ms.
        let rate = TestServer.Configuration(rate: { _ in 4 * 1_048_576 })
        let plain = try TestServer(file: TestFile(data), rate)
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = try TestIdentity(directory: certificates)
        let tls = try TestServer(file: TestFile(data), TestServer.Configuration(tls: identity, rate: rate.rate))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        var outcomes: [Int32: Int] = [:]
        var injected: [String: Int] = [:]
        var reruns = 0
        var overTLS = 0
        for seed in ChaosTests.firstSeed..<ChaosTests.firstSeed + ChaosTests.runs {
            let (spec, mustSucceed) = ChaosTests.faults(seed: seed)
            let useTLS = seed % 6 == 5
            if useTLS { overTLS += 1 }
            let name = "run\(seed).bin"
            var arguments = ["-q", "-n", "4", "--checkpoint-interval", "0.02", "--retries", "3", "--timeout", "10", "-o", name]
            if useTLS { arguments += ["--cacert", identity.certificatePath] }
            arguments.append(useTLS ? tls.url() : plain.url())
            let label = "run \(seed) (\(spec)\(useTLS ? ", TLS" : ""))"

            let run: FaultRun
            do {
                run = try FaultRun(spec, arguments, in: directory.path, timeout: 60)
            } catch {
                Issue.record("\(label): \(error)") // a hang
                continue
            }
            if seed == ChaosTests.firstSeed { try run.requireInjector() }
            outcomes[run.status, default: 0] += 1
            for (key, value) in run.counts ?? [:] where !key.hasPrefix("calls-") && key != "seed" {
                injected[key, default: 0] += value
            }
            let file = directory.file(name)
            let journalPath = file + ".fastget"
            if run.status == 0 {
                #expect(SHA256.hex(ofFile: file) == expected, "\(label): exit 0 with wrong bytes")
                #expect(!FileManager.default.fileExists(atPath: journalPath), "\(label)")
                #expect(!FileManager.default.fileExists(atPath: file + ".part"), "\(label)")
                continue
            }
            #expect(!mustSucceed, "\(label): EINTR and short transfers must not show, got exit \(run.status): \(run.stderr)")
            #expect(ChaosTests.documentedFailures.contains(run.status), "\(label): exit \(run.status): \(run.stderr)")
            if run.stderr.contains("(journal: \(name).fastget)") {
                #expect(FileManager.default.fileExists(atPath: journalPath), "\(label): the hint names a journal that is not there")
            }
            if FileManager.default.fileExists(atPath: journalPath) {
                try ChaosTests.checkJournal(journalPath, part: file + ".part", label: label)
            }

            reruns += 1
            let rerun = try FaultRun(nil, arguments, in: directory.path, timeout: 60)
            #expect(rerun.status == 0, "\(label), rerun without faults: \(rerun.stderr)")
            #expect(SHA256.hex(ofFile: file) == expected, "\(label): the rerun's file differs")
            #expect(!FileManager.default.fileExists(atPath: journalPath), "\(label)")
        }

        let kinds =
            ["eintr", "short-read", "short-write", "reset", "fail"]
            + injected.keys.filter { $0.hasPrefix("fail-") && injected[$0]! > 0 }.sorted()
        let faults = kinds.map { "\($0)=\(injected[$0, default: 0])" }.joined(separator: " ")
        let exits = outcomes.keys.sorted().map { "exit \($0) ×\(outcomes[$0]!)" }.joined(separator: ", ")
        print("chaos: \(ChaosTests.runs) runs (\(overTLS) over TLS): \(exits); \(reruns) reruns without faults; injected: \(faults)")
        // Not vacuous: every kind of fault was injected somewhere (given enough runs).
        for kind in ["eintr", "short-read", "short-write", "reset", "fail"] where ChaosTests.runs >= 20 {
            #expect(injected[kind, default: 0] > 0, "no \(kind) fault was injected in \(ChaosTests.runs) runs")
        }
    }

    /// The journal decodes, and every byte it claims is in the `.part` file, right.
    static func checkJournal(_ path: String, part: String, label: String) throws {
        let journal: Journal
        switch Checkpointer.load(path) {
        case .success(let loaded)?: journal = loaded
        case .failure(let error)?:
            Issue.record("\(label): the journal kept is unreadable: \(error)")
            return
        case nil:
            return
        }
        #expect(journal.length == Int64(data.count), "\(label)")
        guard let bytes = FileManager.default.contents(atPath: part) else {
            // Stopped between the final rename and the journal's removal (the directory's
            // fsync failed): the file is complete under its name, and the rerun says so.
            let final = String(part.dropLast(".part".count))
            #expect(SHA256.hex(ofFile: final) == SHA256.hex(data), "\(label): a journal without its .part file or a complete file")
            return
        }
        #expect(bytes.count == data.count, "\(label): the .part file has \(bytes.count) bytes")
        for segment in journal.segments where segment.written > segment.start {
            let range = Int(segment.start)..<Int(min(segment.written, Int64(bytes.count)))
            #expect(bytes[range] == Data(data[range]), "\(label): the journal claims \(segment.start)..<\(segment.written), not on disk")
        }
    }
}
