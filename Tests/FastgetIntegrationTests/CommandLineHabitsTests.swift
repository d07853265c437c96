import FastgetTestSupport
import Foundation
import Synchronization
import Testing

/// One habit of curl, wget or aria2, as typed, and what the built binary must do with it.
/// In `typed`, `URL` is the test file, `URL:/path` another path of the same server, `PROXY`
/// the server as a proxy, `CA` its certificate and `USERURL:/path` a path with `alice:s3cret@`.
struct HabitRow: Sendable, CustomTestStringConvertible {
    var typed: [String]
    var status: Int32 = 0
    /// Saved under this path in the run's directory, with the file's bytes.
    var file: String?
    /// Standard output: exactly this, or the file's bytes for `data`.
    var stdout: String?
    var stdoutHolds: String?
    /// Standard error holds this, or is exactly empty for "".
    var stderr: String?
    /// Neither standard output nor standard error holds this (a password).
    var lacks: String?
    /// Some request head the server saw holds this.
    var seen: String?
    /// The server saw exactly this many requests.
    var requests: Int?
    var tls = false

    static let data = "data"
    var testDescription: String { typed.joined(separator: " ") }
}

@Suite struct CommandLineHabitsTests {
    /// 16 MiB of letters: enough for 16 ranges of 1 MiB, printable on standard output.
    static let data = testBytes(count: 16 << 20, seed: 127).map { 0x61 + $0 % 26 }

    static let rows: [HabitRow] = [
        // wget's -O: a name that is not a URL, or -, is the output document; curl's -O URL stays.
        HabitRow(typed: ["-O", "out.bin", "URL"], file: "out.bin"),
        HabitRow(typed: ["-Oout.bin", "URL"], file: "out.bin"),
        HabitRow(typed: ["-O", "-", "URL"], stdout: HabitRow.data),
        HabitRow(typed: ["-qO-", "URL"], stdout: HabitRow.data, stderr: ""),
        HabitRow(typed: ["-O", "URL"], file: "file.bin"),
        // wget's order, URL first: the name is no mirror (that would get the -H field too).
        HabitRow(typed: ["-H", "X-Token: abc", "URL", "-O", "out.bin"], file: "out.bin", seen: "X-Token: abc\r\n"),
        HabitRow(typed: ["--create-dirs", "URL", "-O", "downloads.zip/f"], file: "downloads.zip/f"),
        HabitRow(typed: ["-O", "name.bin"], status: 64, stderr: "-O name.bin: a file name (wget) or a URL (curl)? write -o NAME"),
        // curl's flags after -O are flags, not a file name (-OL would have saved ./L).
        HabitRow(typed: ["-OL", "URL"], file: "file.bin"),
        HabitRow(typed: ["-LOJ", "URL"], file: "file.bin"),
        HabitRow(typed: ["-Ok", "URL"], file: "file.bin", tls: true),
        HabitRow(typed: ["-Oname", "URL"], status: 64, stderr: "-Oname: a file name (wget) or flags (curl)? write -o NAME"),
        // aria2's -x N -s N -k SIZE; curl's -x PROXY and -s, -sS.
        HabitRow(typed: ["-x", "16", "-s", "16", "URL"], file: "file.bin"),
        HabitRow(typed: ["-x16", "-s16", "-k1M", "-I", "URL"], stdoutHolds: "16 ranges: 0-1048575, "),
        HabitRow(typed: ["-s", "16", "-k", "4M", "--dry-run", "URL"], stdoutHolds: "4 ranges: 0-4194303, "),
        HabitRow(typed: ["-x", "PROXY", "http://files.invalid/file.bin"], file: "file.bin", seen: "GET http://files.invalid/file.bin "),
        HabitRow(typed: ["-sS", "URL"], file: "file.bin", stderr: ""),
        // curl's -s and -k with -4: flags, not 4 segments or a 4-byte split.
        HabitRow(typed: ["-s4", "URL"], file: "file.bin", stderr: ""),
        HabitRow(typed: ["-k4", "URL"], file: "file.bin", tls: true),
        // curl's flags that ask for what fastget does anyway.
        HabitRow(typed: ["-f", "-J", "--fail", "--content-disposition", "URL"], file: "file.bin"),
        HabitRow(typed: ["-m", "30", "-T", "5", "URL"], file: "file.bin"),
        HabitRow(typed: ["-m", "soon", "URL"], status: 64, stderr: "option -m needs a number of seconds"),
        HabitRow(typed: ["--head", "URL"], stdoutHolds: "file.bin", requests: 1),
        // wget's -U is the User-Agent; curl's -U USER:PASS is proxy credentials: refused, and
        // never sent or echoed.
        HabitRow(typed: ["-U", "Wget/1.21 (linux)", "URL"], file: "file.bin", seen: "User-Agent: Wget/1.21 (linux)\r\n"),
        HabitRow(
            typed: ["-x", "PROXY", "-U", "alice:s3cret", "http://files.invalid/file.bin"], status: 64,
            stderr: "-U USER:PASS is curl's proxy user: write --proxy http://USER:PASS@HOST:PORT", lacks: "s3cret", requests: 0),
        HabitRow(typed: ["-qUalice:s3cret", "URL"], status: 64, stderr: "-U USER:PASS is curl's proxy user", lacks: "s3cret"),
        HabitRow(typed: ["--proxy-user=alice:s3cret", "URL"], status: 64, stderr: "did you mean --proxy http://USER:PASS@", lacks: "s3cret"),
        HabitRow(typed: ["-nv", "URL"], file: "file.bin", stderr: "fastget: saved file.bin ("),
        // curl's -w with its common variables, after a success and after a failure.
        HabitRow(
            typed: ["-w", "%{http_code} %{size_download} %{filename_effective}\\n", "URL"], file: "file.bin",
            stdout: "200 \(16 << 20) file.bin\n"),
        HabitRow(typed: ["-w", "%{http_code}\\n", "URL:/gone"], status: 66, stdout: "404\n"),
        HabitRow(typed: ["-w", "%{num_redirects}", "URL"], status: 64, stderr: "not %{num_redirects}; --json has every figure"),
        HabitRow(typed: ["-w", "%{http_code}", "-i", "list.txt"], status: 64, stderr: "-w reports one download; with -i, --json reports each"),
        HabitRow(typed: ["-w", "%{url_effective}\\n", "USERURL:/gone"], status: 66, stdoutHolds: "http://127.0.0.1:", lacks: "s3cret"),
        HabitRow(typed: ["-w", "%{url_effective}\\n", "USERURL:/file.bin"], file: "file.bin", stdoutHolds: "http://127.0.0.1:", lacks: "s3cret"),
        // -w's text would end up inside the file, or among --json's lines; -I fetches nothing to report.
        HabitRow(typed: ["-q", "-o", "-", "-w", "%{http_code}\\n", "URL"], status: 64, stderr: "-w and -o - both want standard output"),
        HabitRow(typed: ["-w", "%{http_code}", "-o", "/dev/stdout", "URL"], status: 64, stderr: "-w and -o /dev/stdout both want standard output"),
        HabitRow(typed: ["--json", "-w", "%{http_code}", "URL"], status: 64, stderr: "-w and --json both want standard output"),
        HabitRow(typed: ["-I", "-w", "%{http_code}", "URL"], status: 64, stderr: "-w reports a download; --dry-run (-I) fetches nothing"),
        // Redirects: curl's --max-redirs, wget's --max-redirect.
        HabitRow(typed: ["--max-redirs", "1", "URL:/r2"], status: 76, stderr: "more than 1 redirect, last to "),
        HabitRow(typed: ["--max-redirect=2", "URL:/r2"], file: "r2"),
        // -d DIR -o NAME, as curl's --output-dir.
        HabitRow(typed: ["-d", "sub", "-o", "n.bin", "URL"], file: "sub/n.bin"),
        HabitRow(typed: ["--output-dir", "sub", "-o", "/abs.bin", "URL"], status: 64, stderr: "-o /abs.bin is an absolute path"),
        HabitRow(typed: ["-d", "sub", "-o", "/dev/null", "URL"]),
        // Status classes: a client error has its own code and is not retried; nor is a 501.
        HabitRow(typed: ["URL:/bad"], status: 65, stderr: "server answered 400 ", requests: 1),
        HabitRow(typed: ["URL:/teapot"], status: 65, requests: 1),
        // 501 to the ranged GET: the probe's HEAD and bytes=0-0 ask again, once each.
        HabitRow(typed: ["URL:/unimplemented"], status: 69, requests: 3),
        // Cloudflare's 522 too, asked once: only 408, 425, 429, 500, 502, 503 and 504 are retried.
        HabitRow(typed: ["URL:/cloudflare"], status: 69, requests: 1),
        // Other tools' names: what to type instead.
        HabitRow(typed: ["--http-user", "me", "URL"], status: 64, stderr: "unknown option '--http-user'; did you mean -u USER:PASS?"),
        HabitRow(
            typed: ["--http-password=hunter2", "URL"], status: 64, stderr: "unknown option '--http-password'; did you mean -u USER:PASS?",
            lacks: "hunter2"),
        HabitRow(typed: ["-r", "0-99", "URL"], status: 64, stderr: "curl's -r (a range): fastget fetches whole files"),
        HabitRow(typed: ["--no-check-certificat", "URL"], status: 64, stderr: "did you mean --no-check-certificate?"),
        HabitRow(
            typed: ["--check-certificate=maybe", "URL"], status: 64,
            stderr: "unknown option '--check-certificate'; certificates are checked unless -k (--check-certificate=false) is given"),
        // aria2's booleans asking for the default.
        HabitRow(typed: ["--check-certificate=true", "--allow-overwrite=false", "URL"], file: "file.bin"),
        // Certificates: wget's and aria2's names for -k and --cacert.
        HabitRow(typed: ["URL"], status: 76, tls: true),
        HabitRow(typed: ["--no-check-certificate", "URL"], file: "file.bin", tls: true),
        HabitRow(typed: ["--check-certificate=false", "URL"], file: "file.bin", tls: true),
        HabitRow(typed: ["--ca-certificate=CA", "URL"], file: "file.bin", tls: true),
    ]

    @Test(arguments: rows) func habitDoesWhatItsToolMeant(row: HabitRow) throws {
        let certificates = try TemporaryDirectory("fastget-identity")
        defer { certificates.remove() }
        let identity = row.tls ? try TestIdentity(directory: certificates) : nil
        let file = TestFile(Self.data)
        let server = try TestServer(TestServer.Configuration(tls: identity)) { request in
            switch request.target {
            case "/gone": .status(404)
            case "/bad": .status(400)
            case "/teapot": .status(418)
            case "/unimplemented": .status(501)
            case "/cloudflare": .status(522)
            case "/r2": .redirect(status: 302, location: "/r1")
            case "/r1": .redirect(status: 302, location: "/file.bin")
            default: .file(file)
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = row.typed.map { word in
            switch word {
            case "URL": server.url()
            case "PROXY": server.url("")
            default:
                word.hasPrefix("USERURL:")
                    ? server.url(String(word.dropFirst(8))).replacingOccurrences(of: "://", with: "://alice:s3cret@")
                    : word.hasPrefix("URL:")
                        ? server.url(String(word.dropFirst(4)))
                        : word.hasPrefix("--ca-certificate=CA") ? "--ca-certificate=" + (identity?.certificatePath ?? "") : word
            }
        }
        let result = try runProcess(try fastgetExecutable(), ["--no-config"] + arguments, in: directory.path, timeout: 60)
        #expect(result.status == row.status, "\(result.stderr)")
        if let name = row.file {
            #expect(SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(Self.data), "\(result.stderr)")
            let saved = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(saved == [String(name.prefix { $0 != "/" })], "nothing else saved")
        }
        if row.file == nil {
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing saved")
        }
        if let stdout = row.stdout {
            let expected = stdout == HabitRow.data ? String(decoding: Self.data, as: UTF8.self) : stdout
            #expect(result.stdout == expected, "\(result.stdout.prefix(200))")
        }
        if let part = row.stdoutHolds { #expect(result.stdout.contains(part), "\(result.stdout)") }
        if let stderr = row.stderr { #expect(stderr.isEmpty ? result.stderr.isEmpty : result.stderr.contains(stderr), "\(result.stderr)") }
        if let secret = row.lacks { #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(result.stderr)") }
        if let seen = row.seen { #expect(server.requests.contains { $0.raw.contains(seen) }, "\(server.requests.map(\.raw))") }
        if let count = row.requests { #expect(server.requests.count == count, "\(server.requests.map(\.raw))") }
    }

    /// `-n 8` against a server without ranges, killed, and run again: one notice each for the
    /// connection it could not have and the resume it could not make, and the rerun asks once,
    /// as a first run does (no HEAD, no bytes=0-0).
    @Test func saysWhatAServerWithoutRangesCannotGive() throws {
        var file = TestFile(Self.data)
        file.honorsRange = false
        file.advertisesRanges = false
        // The first run is slow enough to be killed midway; the rerun is not held back.
        let slow = Atomic(true)
        let server = try TestServer(file: file, TestServer.Configuration(rate: { _ in slow.load(ordering: .relaxed) ? 2_000_000 : nil }))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["--no-config", "-nv", "-n", "8", "-o", "k.bin", server.url()]
        let first = try Spawned(try fastgetExecutable(), arguments, in: directory.path)
        // Killed once its `.part` holds something (a `.part` still empty has nothing to lose,
        // and the rerun rightly says nothing of it).
        first.wait(upTo: 30) {
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.file("k.bin.part"))[.size] as? Int) ?? 0
            return size > 0 && server.responses.isEmpty
        }
        first.signal(SIGKILL)
        #expect(first.waitForExit(30))
        // (Its notices may not be out yet when it is killed: events reach the display at the
        // coordinator's next tick. The rerun's are checked below, the same line among them.)
        #expect(FileManager.default.fileExists(atPath: directory.file("k.bin.part")))
        server.clearRecords()
        slow.store(false, ordering: .relaxed)
        let rerun = try runProcess(try fastgetExecutable(), arguments, in: directory.path, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("k.bin")) == SHA256.hex(Self.data))
        let notices = rerun.stderr.split(separator: "\n").filter { !$0.hasPrefix("fastget: saved ") }
        #expect(
            notices == [
                "fastget: k.bin.part cannot be resumed (the server does not accept ranges); starting from 0",
                "fastget: server does not accept ranges: one connection",
            ], "\(rerun.stderr)")
        #expect(server.requests.map { "\($0.method) \($0.header("Range") ?? "")" } == ["GET bytes=0-"], "\(server.requests.map(\.raw))")
    }
}
