import FastgetTestSupport
import Foundation
import Testing

/// The static binary in a stand-in for a `FROM scratch` container: a root holding only the
/// binary, a CA bundle where a scratch image would have it and `/etc/hosts`, entered with
/// `unshare --mount --pid --fork`, a fresh `/proc` and `chroot`, with an empty environment.
/// `.ci/run` builds the binary (scripts/build-static.sh) and names it in FASTGET_STATIC_BINARY.
@Suite(
    .enabled(if: ProcessInfo.processInfo.environment["FASTGET_STATIC_BINARY"] != nil, "FASTGET_STATIC_BINARY is not set"),
    .serialized)
struct StaticBinaryTests {
    let data = testBytes(count: (5 << 20) + 3, seed: 17)

    /// Runs `arguments` as /fastget inside `root` (which must hold it); returns the result.
    func runInContainer(_ root: TemporaryDirectory, _ arguments: [String]) throws -> ProcessResult {
        let unshare = try #require(findExecutable("unshare"))
        let quoted = arguments.map { "'" + $0 + "'" }.joined(separator: " ")
        let script = "mount -t proc proc '\(root.path)/proc' && exec chroot '\(root.path)' /fastget \(quoted)"
        return try runProcess(
            unshare, ["--mount", "--pid", "--fork", "/bin/sh", "-c", script],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], timeout: 120)
    }

    /// A root with the binary, /etc/hosts, /proc and /out; with the CA bundle unless `bundle` is false.
    func makeRoot(ca: String, bundle: Bool = true) throws -> TemporaryDirectory {
        let binary = try #require(ProcessInfo.processInfo.environment["FASTGET_STATIC_BINARY"])
        let root = try TemporaryDirectory("fastget-root")
        let manager = FileManager.default
        for folder in ["proc", "out", "etc/ssl/certs"] {
            try manager.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        try manager.copyItem(atPath: binary, toPath: root.file("fastget"))
        try "127.0.0.1 localhost\n".write(toFile: root.file("etc/hosts"), atomically: true, encoding: .utf8)
        if bundle { try manager.copyItem(atPath: ca, toPath: root.file("etc/ssl/certs/ca-certificates.crt")) }
        return root
    }

    @Test func downloadsOverTLSFromAnEmptyRootAndFailsWithTheRightCodes() throws {
        let certificateDirectory = try TemporaryDirectory("fastget-certs")
        defer { certificateDirectory.remove() }
        let certificates = try TestCertificates(in: certificateDirectory)
        let nginx = try Nginx(files: ["big.bin": data], tls: (certificates.serverCertificate, certificates.serverKey))
        defer { nginx.stop() }
        let url = nginx.url("/big.bin", host: "localhost", scheme: "https")

        let root = try makeRoot(ca: certificates.caCertificate)
        defer { root.remove() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["etc", "fastget", "out", "proc"])
        let ok = try runInContainer(root, ["-q", "-n", "4", "-o", "/out/big.bin", url])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(SHA256.hex(ofFile: root.file("out/big.bin")) == SHA256.hex(data))

        let missing = try runInContainer(root, ["-q", "-o", "/out/missing.bin", nginx.url("/missing.bin", host: "localhost", scheme: "https")])
        #expect(missing.status == 66, "\(missing.stderr)")

        // Without any CA bundle, verification cannot be done: a clear error, not a silent pass.
        let bare = try makeRoot(ca: certificates.caCertificate, bundle: false)
        defer { bare.remove() }
        let untrusted = try runInContainer(bare, ["-q", "-o", "/out/big.bin", url])
        #expect(untrusted.status == 66, "\(untrusted.stderr)")
        #expect(
            untrusted.stderr.hasPrefix(
                "fastget: error: TLS: no CA certificates found\nhint: set SSL_CERT_FILE, pass --cacert FILE, or -k to skip verification\n"),
            "\(untrusted.stderr)")
    }
}
