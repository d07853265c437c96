import Fastget
@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// What people type, coming from curl, wget and aria2: combined short flags, near misses,
/// other tools' names for the same thing, and options that do what those tools' do.
@Suite struct OptionHabitTests {
    let data = testBytes(count: 3 << 20, seed: 111)

    func parse(_ arguments: [String]) throws -> Invocation { try ArgumentParser.parse(arguments + ["http://h/f"]) }

    @Test func shortFlagsCombineAndTheFirstWithAValueTakesTheRest() throws {
        let combined = try parse(["-qkn8"])
        #expect(combined.quiet && !combined.options.verifiesCertificates && combined.options.segments == 8)
        let apart = try parse(["-qk", "-n", "2"])
        #expect(apart.quiet && !apart.options.verifiesCertificates && apart.options.segments == 2)
        #expect(throws: UsageError.self) { try parse(["-qz"]) }
    }

    @Test func otherToolsNamesMeanTheSame() throws {
        let curl = try parse(["-L", "-O", "-s", "-x", "http://proxy:3128", "--retry", "2", "-C", "-"])
        #expect(curl.quiet && curl.options.proxy == "http://proxy:3128" && curl.options.retries == 2 && curl.options.continuePartial)
        let wget = try parse(["-P", "out", "-t", "4", "-nc"])
        #expect(wget.options.directory == "out" && wget.options.createsDirectories && wget.options.retries == 4 && wget.options.keepsExistingFile)
        let aria2 = try parse(["--split", "6", "--max-connection-per-server", "4", "--tries", "1"])
        #expect(aria2.options.segments == 6 && aria2.maximumConnections == 4 && aria2.options.retries == 1)
        let network = try parse(["-6", "--resolve", "example.com:443:[::1]", "--resolve", "a.test:80:127.0.0.1", "--max-time", "2.5"])
        #expect(network.options.addressFamily == .ipv6 && network.maximumTime == 2.5)
        #expect(network.options.resolve == ["example.com:443": "::1", "a.test:80": "127.0.0.1"])
        #expect(throws: UsageError.self) { try parse(["-C", "100"]) }
        #expect(throws: UsageError.self) { try parse(["--resolve", "example.com:443"]) }
    }

    /// curl's --output-dir applies to -o on the same command line; a configuration file's
    /// directory is where files named by their URL go, and yields to any -o.
    @Test func theConfigurationsDirectoryLeavesOAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = directory.file("config")
        try "directory = downloads\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let named = try ArgumentParser.parse(["-o", "n.bin", "http://h/f"], configuration: configuration)
        #expect(named.options.output == "n.bin")
        let given = try ArgumentParser.parse(["-d", "sub", "-o", "n.bin", "http://h/f"], configuration: configuration)
        #expect(given.options.output == "sub/n.bin")
        let derived = try ArgumentParser.parse(["http://h/f"], configuration: configuration)
        #expect(derived.options.directory == "downloads" && derived.options.output == nil)
    }

    @Test func aNearMissSuggestsTheOption() throws {
        let result = try runProcess(try fastgetExecutable(), ["--segmnts", "4", "http://127.0.0.1:9/f"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("fastget: error: unknown option '--segmnts'; did you mean --segments?\n"), "\(result.stderr)")
    }

    @Test func directoriesAreCreatedForDAndWithCreateDirs() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let byD = try runProcess(try fastgetExecutable(), ["-q", "-d", "new/sub", server.url("/d.bin")], in: directory.path)
        #expect(byD.status == 0, "\(byD.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("new/sub/d.bin")) == SHA256.hex(data))
        let refused = try runProcess(try fastgetExecutable(), ["-q", "-o", "a/b/o.bin", server.url()], in: directory.path)
        #expect(refused.status == 73, "without --create-dirs: \(refused.stderr)")
        let created = try runProcess(try fastgetExecutable(), ["-q", "--create-dirs", "-o", "a/b/o.bin", server.url()], in: directory.path)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("a/b/o.bin")) == SHA256.hex(data))
    }

    @Test func noClobberLeavesACompleteFileAndRefusesAnother() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(data).write(to: URL(fileURLWithPath: directory.file("n.bin")))
        let kept = try runProcess(try fastgetExecutable(), ["-nc", "-o", "n.bin", server.url()], in: directory.path)
        #expect(kept.status == 0 && kept.stderr.contains("n.bin already exists with the server's length; leaving it"), "\(kept.stderr)")
        #expect(!server.requests.contains { $0.method == "GET" && $0.header("Range") != "bytes=0-0" }, "nothing fetched")
        try Data(data.prefix(1000)).write(to: URL(fileURLWithPath: directory.file("n.bin")))
        let other = try runProcess(try fastgetExecutable(), ["--no-clobber", "-o", "n.bin", server.url()], in: directory.path)
        #expect(other.status == 73, "\(other.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("n.bin"))?.count == 1000, "left alone")
    }

    @Test func resolveAndAddressFamilyChooseWhereToConnect() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = URL(string: server.url())!.port!
        let resolved = try runProcess(
            try fastgetExecutable(),
            ["-q", "-4", "--resolve", "files.example:\(port):127.0.0.1", "-o", "r.bin", "http://files.example:\(port)/file.bin"],
            in: directory.path)
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("r.bin")) == SHA256.hex(data))
        #expect(server.requests.first?.header("Host") == "files.example:\(port)")
        // An IPv4 address has no IPv6 address to connect to.
        let v6 = try runProcess(try fastgetExecutable(), ["-6", "-o", "v6.bin", server.url()], in: directory.path)
        #expect(v6.status == 68, "\(v6.stderr)")
    }

    @Test func maxTimeStopsTheRunKeepingWhatIsInAndTheSameCommandResumes() throws {
        let server = try TestServer(file: TestFile(data), TestServer.Configuration(rate: { _ in 1_048_576 }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["-n", "1", "--checkpoint-interval", "0.1", "--max-time", "0.6", "-o", "m.bin", server.url()]
        let stopped = try runProcess(try fastgetExecutable(), arguments, in: directory.path)
        #expect(stopped.status == 75, "\(stopped.stderr)")
        #expect(
            stopped.stderr.contains("fastget: stopped after --max-time 0.60 s: ") && stopped.stderr.contains(" kept; run the same command"),
            "\(stopped.stderr)")
        let rerun = try runProcess(try fastgetExecutable(), ["-q", "-n", "2", "-o", "m.bin", server.url()], in: directory.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("m.bin")) == SHA256.hex(data))
        // The same exit status with --json, and its error event says so.
        let json = try runProcess(try fastgetExecutable(), ["--json"] + arguments.dropLast(3) + ["-o", "j.bin", server.url()], in: directory.path)
        #expect(json.status == 75, "\(json.stderr)")
        #expect(json.stdout.contains("\"exit_code\":75") && json.stdout.contains("stopped after --max-time"), "\(json.stdout)")
    }

    @Test func aUserWithoutAPasswordIsAskedOnATerminalAndRefusedElsewhere() throws {
        let result = try runProcess(try fastgetExecutable(), ["-u", "alice", "http://127.0.0.1:9/f"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("-u alice has no password: give -u alice:PASSWORD, or run on a terminal to be asked"), "\(result.stderr)")
    }
}

/// `-u USER` on a terminal: the password is asked for without echo (under script(1), which
/// gives the command a terminal of its own).
@Suite struct PasswordPromptTests {
    /// A shell `command` run under script(1), started and read up to `prompt` (bounded by its
    /// exit); what it printed since comes with `finish`.
    final class OnATerminal {
        let process = Process()
        let input = Pipe()
        private let output = Pipe()
        private let exited = DispatchSemaphore(value: 0)
        private var seen = Data()

        init(_ script: String, _ command: String, in directory: String, until prompt: String) throws {
            process.executableURL = URL(fileURLWithPath: script)
            process.arguments = ["-qec", command, "/dev/null"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            (process.standardInput, process.standardOutput) = (input, output)
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
            while !String(decoding: seen, as: UTF8.self).contains(prompt) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += chunk
            }
        }

        /// Waits (at most 30 s) for it to exit; everything it printed, or nil when it did not exit.
        func finish() -> String? {
            guard exited.wait(timeout: .now() + 30) == .success else { return nil }
            return String(decoding: seen + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    @Test func thePasswordIsAskedForWithoutEcho() throws {
        guard let script = findExecutable("script") else { Issue.record("script(1) is missing"); return }
        let data = testBytes(count: 256 * 1024, seed: 112)
        let file = TestFile(data)
        let guarding = BasicGuard(user: "alice", password: "s3cret")
        let server = try TestServer { request in guarding.check(request) ?? .file(file) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let terminal = try OnATerminal(
            script, "'\(try fastgetExecutable())' -q -u alice -o p.bin '\(server.url())'", in: directory.path,
            until: "Enter password for alice: ")
        // Type the password once the prompt is there (echo is off by then).
        terminal.input.fileHandleForWriting.write(Data("s3cret\n".utf8))
        let text = try #require(terminal.finish())
        #expect(terminal.process.terminationStatus == 0, "\(text)")
        #expect(SHA256.hex(ofFile: directory.file("p.bin")) == SHA256.hex(data))
        #expect(!text.contains("s3cret"), "not echoed")
    }

    /// The processes whose command line has `word` among its arguments.
    func processes(with word: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return line.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == word }
        }
    }

    /// Ctrl-C typed, or a SIGTERM sent (kill, a service manager), while it asks.
    @Test(arguments: [false, true])
    func aStopAtThePromptCancelsAndRestoresTheTerminal(terminated: Bool) throws {
        guard let script = findExecutable("script") else { Issue.record("script(1) is missing"); return }
        let server = try TestServer { _ in .status(401, body: "who?") }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let user = "alice-\(directory.path)"
        let terminal = try OnATerminal(
            script, "'\(try fastgetExecutable())' -u '\(user)' -o c.bin '\(server.url())'; stty -a | grep -o ' echo '",
            in: directory.path, until: "Enter password for \(user): ")
        if terminated {
            let asking = processes(with: user)
            #expect(asking.count == 1)
            for pid in asking { kill(pid, SIGTERM) }
        } else {
            terminal.input.fileHandleForWriting.write(Data([0x03]))
        }
        let text = try #require(terminal.finish())
        #expect(text.contains("fastget: cancelled"), "\(text)")
        #expect(text.contains(" echo "), "echo is back on: \(text)")
        #expect(server.requests.isEmpty, "nothing was sent")
    }
}
