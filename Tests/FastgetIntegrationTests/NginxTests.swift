import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// nginx is a test dependency: `.ci/run` installs it. Locally the suite skips without it,
/// but under CI a missing nginx is a failure, never a silent skip.
private let nginxAvailable = Nginx.executable != nil || ProcessInfo.processInfo.environment["CI"] != nil

private let big = testBytes(count: (32 << 20) + 7, seed: 7)

@Suite(.enabled(if: nginxAvailable, "nginx is not installed"), .serialized)
struct NginxTests {
    static let files: [String: [UInt8]] = [
        "big.bin": big,
        "empty.bin": [],
        "one.bin": [0x2A],
    ]

    @Test(arguments: [1, 4, 16])
    func downloadsAnOddSizedFileByteIdentical(segments: Int) throws {
        let nginx = try Nginx(files: NginxTests.files)
        defer { nginx.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.segments = segments
        options.output = directory.file("big.bin")
        let report = try Download(url: nginx.url("/big.bin"), options: options).run()
        #expect(report.workers == segments && report.bytes == Int64(big.count))
        #expect(SHA256.hex(ofFile: directory.file("big.bin")) == SHA256.hex(big))

        // The access log: no HEAD; the N planned ranges, each answered 206, the first of them
        // the probe's GET from byte 0 to the end; any further range is the tail of a slower
        // segment taken over by an idle connection (a steal or hedge).
        let log = nginx.accessLog()
        #expect(log.allSatisfy { !$0.hasPrefix("HEAD") })
        let ranged = log.filter { $0.hasPrefix("GET /big.bin 206 \"bytes=") }
        let asked = Set(ranged.map { String($0.split(separator: " ")[3].dropFirst(7).dropLast()) })
        let planned = SegmentPlan.tiles(length: Int64(big.count), segments: segments, minimumSize: 1 << 20)
        #expect(asked.isSuperset(of: ["0-"] + planned.dropFirst().map { "\($0.start)-\($0.end - 1)" }), "\(log)")
        #expect(ranged.count == segments + report.steals + report.hedges + report.hedgesLost, "\(log)")
        #expect(log.allSatisfy { !$0.hasPrefix("GET /big.bin 200") })
    }

    @Test(arguments: ["empty.bin", "one.bin"])
    func downloadsTinyFiles(name: String) throws {
        let nginx = try Nginx(files: NginxTests.files)
        defer { nginx.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file(name)
        let report = try Download(url: nginx.url("/" + name), options: options).run()
        #expect(report.bytes == Int64(NginxTests.files[name]!.count))
        #expect(SHA256.hex(ofFile: directory.file(name)) == SHA256.hex(NginxTests.files[name]!))
    }

    @Test func reportsNotFound() throws {
        let nginx = try Nginx(files: NginxTests.files)
        defer { nginx.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = DownloadOptions()
        options.output = directory.file("x")
        #expect {
            try Download(url: nginx.url("/missing.bin"), options: options).run()
        } throws: { error in
            (error as? FastgetError)?.code == .notFound
        }
    }
}

@Suite(.enabled(if: nginxAvailable, "nginx is not installed"), .serialized)
struct TLSTests {
    let certificates: TestCertificates
    let certificateDirectory: TemporaryDirectory
    let data = testBytes(count: (3 << 20) + 11, seed: 3)

    init() throws {
        certificateDirectory = try TemporaryDirectory("fastget-certs")
        certificates = try TestCertificates(in: certificateDirectory)
    }

    private func withServer(_ body: (Nginx, TemporaryDirectory) throws -> Void) throws {
        let nginx = try Nginx(
            files: ["file.bin": data], tls: (certificates.serverCertificate, certificates.serverKey),
            extraConfiguration: "location = /to-http { return 302 http://localhost:1/file.bin; }")
        defer { nginx.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove(); certificateDirectory.remove() }
        try body(nginx, directory)
    }

    private func run(
        _ url: String, into directory: TemporaryDirectory, _ configure: (inout DownloadOptions) -> Void
    ) -> Result<DownloadReport, FastgetError> {
        var options = DownloadOptions()
        options.segments = 3
        options.output = directory.file("file.bin")
        options.replacesExistingFile = true
        configure(&options)
        do throws(FastgetError) {
            return .success(try Download(url: url, options: options).run())
        } catch {
            return .failure(error)
        }
    }

    @Test func trustsTheServerThroughTheGivenCA() throws {
        try withServer { nginx, directory in
            let result = run(nginx.url("/file.bin", host: "localhost", scheme: "https"), into: directory) {
                $0.caFile = certificates.caCertificate
            }
            let report = try result.get()
            #expect(report.workers == 3)
            #expect(SHA256.hex(ofFile: directory.file("file.bin")) == SHA256.hex(data))
        }
    }

    @Test func rejectsAHostTheCertificateDoesNotName() throws {
        try withServer { nginx, directory in
            // The certificate names only "localhost", not the address 127.0.0.1.
            let url = nginx.url("/file.bin", host: "127.0.0.1", scheme: "https")
            let rejected = run(url, into: directory) { $0.caFile = certificates.caCertificate }
            guard case .failure(let error) = rejected else { Issue.record("expected a failure"); return }
            #expect(error.code == .tls)
            #expect(error.message.contains("mismatch"), "\(error.message)")
            let insecure = run(url, into: directory) { $0.verifiesCertificates = false }
            #expect(throws: Never.self) { try insecure.get() }
            #expect(SHA256.hex(ofFile: directory.file("file.bin")) == SHA256.hex(data))
        }
    }

    @Test func rejectsAnUnknownCA() throws {
        try withServer { nginx, directory in
            let url = nginx.url("/file.bin", host: "localhost", scheme: "https")
            let rejected = run(url, into: directory) { _ in }
            guard case .failure(let error) = rejected else { Issue.record("expected a failure"); return }
            #expect(error.code == .tls)
            #expect(error.message.contains("unable to get local issuer certificate"), "\(error.message)")
            let insecure = run(url, into: directory) { $0.verifiesCertificates = false }
            #expect(throws: Never.self) { try insecure.get() }
        }
    }

    @Test func saysWhenTheCertificateHasExpired() throws {
        let nginx = try Nginx(files: ["file.bin": data], tls: (certificates.expiredCertificate, certificates.serverKey))
        defer { nginx.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove(); certificateDirectory.remove() }
        let result = run(nginx.url("/file.bin", host: "localhost", scheme: "https"), into: directory) {
            $0.caFile = certificates.caCertificate
        }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .tls)
        #expect(error.message == "TLS with localhost:\(nginx.port): certificate verification failed: certificate has expired")
    }

    @Test func commandLineExitsWithTheTLSCodeAndPassesWithInsecure() throws {
        try withServer { nginx, directory in
            let url = nginx.url("/file.bin", host: "localhost", scheme: "https")
            let executable = try fastgetExecutable()
            let rejected = try runProcess(executable, ["-q", url], in: directory.path)
            #expect(rejected.status == 76)
            #expect(rejected.stderr.hasPrefix("fastget: error: TLS with localhost:\(nginx.port): certificate verification failed: "))
            #expect(rejected.stderr.hasSuffix("hint: use --cacert FILE to trust another CA, or -k to skip verification\n"))
            let trusted = try runProcess(executable, ["-q", "--cacert", certificates.caCertificate, "-o", "a.bin", url], in: directory.path)
            #expect(trusted.status == 0, "\(trusted.stderr)")
            let insecure = try runProcess(executable, ["-q", "-k", "-o", "b.bin", url], in: directory.path)
            #expect(insecure.status == 0, "\(insecure.stderr)")
            #expect(SHA256.hex(ofFile: directory.file("a.bin")) == SHA256.hex(data))
            #expect(SHA256.hex(ofFile: directory.file("b.bin")) == SHA256.hex(data))
        }
    }

    @Test func refusesARedirectFromHTTPSToHTTP() throws {
        try withServer { nginx, directory in
            let result = run(nginx.url("/to-http", host: "localhost", scheme: "https"), into: directory) {
                $0.caFile = certificates.caCertificate
            }
            guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
            #expect(error.code == .protocolViolation && error.message.contains("from https to http"))
        }
    }

    @Test func reportsAMissingCAFile() throws {
        try withServer { nginx, directory in
            let result = run(nginx.url("/file.bin", host: "localhost", scheme: "https"), into: directory) {
                $0.caFile = directory.file("no-such-ca.pem")
            }
            guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
            #expect(
                error.code == .notFound
                    && error.message.hasSuffix("cannot read CA file \(directory.file("no-such-ca.pem")): No such file or directory"),
                "\(error.message)")
            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: directory.file("junk.pem")))
            let junk = run(nginx.url("/file.bin", host: "localhost", scheme: "https"), into: directory) { $0.caFile = directory.file("junk.pem") }
            guard case .failure(let other) = junk else { Issue.record("expected a failure"); return }
            #expect(other.message.hasSuffix("CA file \(directory.file("junk.pem")) holds no certificate in PEM form"), "\(other.message)")
        }
    }
}
