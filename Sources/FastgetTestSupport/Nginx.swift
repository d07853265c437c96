import Fastget
import Foundation
import Glibc

/// A real nginx serving a folder on a free loopback port, from a private prefix in the
/// foreground; its access log records method, URI, status, `Range` and bytes sent.
public final class Nginx: @unchecked Sendable {
    public let port: Int
    public let root: String
    public let prefix: TemporaryDirectory
    private let process: Process
    /// Where it listened when it was started on a free loopback port (nil: an address given).
    private let loopback: String?
    /// After `stop`, its loopback port held by a socket that does not listen (`TestServer`
    /// does the same): its URLs are refused, and no server started later is given the port.
    private let reservation = Locked<Int32>(-1)

    /// Where nginx is, or nil when it is not installed.
    public static var executable: String? { findExecutable("nginx") }

    /// - Parameters:
    ///   - files: name → contents, written world-readable (the worker runs as `nobody`).
    ///   - tls: certificate and key files; the server then speaks only HTTPS.
    ///   - extraConfiguration: directives added inside the `server` block.
    ///   - httpConfiguration: directives added inside the `http` block (e.g. a `map`).
    ///   - listenOptions: parameters of the `listen` directive (e.g. `sndbuf=32k`).
    ///   - address: listen there instead of on a free loopback port.
    ///   - wrapper: a command nginx runs under that ends in an `exec` of it, e.g. `ip netns exec
    ///     NS`; nginx is then taken as ready once it wrote its pid file, which it does after it
    ///     bound its listener (a listener in another network namespace cannot be probed from here).
    public init(
        files: [String: [UInt8]] = [:], tls: (certificate: String, key: String)? = nil, extraConfiguration: String = "",
        httpConfiguration: String = "", listenOptions: String = "", address: (host: String, port: Int)? = nil, wrapper: [String] = []
    ) throws {
        guard let executable = Nginx.executable else { throw HarnessError("nginx is not installed") }
        prefix = try TemporaryDirectory("fastget-nginx")
        root = prefix.file("html")
        for folder in ["conf", "logs", "html", "tmp"] {
            try FileManager.default.createDirectory(atPath: prefix.file(folder), withIntermediateDirectories: true)
        }
        for (name, bytes) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        _ = try runProcess("/bin/chmod", ["-R", "a+rX", prefix.path])

        var lastError = ""
        for _ in 0..<(address == nil ? 5 : 1) {
            let port = try address?.port ?? freeLoopbackPort()
            let listen = "listen \(address?.host ?? "127.0.0.1"):\(port)\(tls == nil ? "" : " ssl") \(listenOptions);"
            let certificates = tls.map { "ssl_certificate \($0.certificate); ssl_certificate_key \($0.key);" } ?? ""
            let configuration = """
                daemon off;
                pid logs/nginx.pid;
                worker_processes 1;
                error_log logs/error.log;
                events { worker_connections 1024; }
                http {
                    log_format fastget '$request_method $uri $status "$http_range" $body_bytes_sent $connection $msec';
                    access_log logs/access.log fastget;
                    client_body_temp_path tmp/body; proxy_temp_path tmp/proxy; fastcgi_temp_path tmp/fastcgi;
                    uwsgi_temp_path tmp/uwsgi; scgi_temp_path tmp/scgi;
                    default_type application/octet-stream;
                    keepalive_requests 10000;
                    sendfile on;
                    \(httpConfiguration)
                    server {
                        \(listen)
                        \(certificates)
                        root \(root);
                        \(extraConfiguration)
                    }
                }
                """
            try configuration.write(toFile: prefix.file("conf/nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            let command = wrapper + [executable, "-p", prefix.path, "-c", "conf/nginx.conf", "-e", "logs/error.log"]
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardOutput = Foundation.FileHandle.nullDevice
            process.standardError = Foundation.FileHandle.nullDevice
            try process.run()
            if wrapper.isEmpty ? waitForListener(port: port) : Nginx.waitForPidFile(prefix.file("logs/nginx.pid"), process) {
                self.port = port
                self.process = process
                loopback = address == nil ? "127.0.0.1" : nil
                return
            }
            process.terminate()
            process.waitUntilExit()
            lastError = (try? String(contentsOfFile: prefix.file("logs/error.log"), encoding: .utf8)) ?? ""
        }
        throw HarnessError("nginx did not start: \(lastError)")
    }

    deinit {
        stop()
        reservation.withLock { if $0 >= 0 { close($0) } }
    }

    /// Whether nginx wrote its pid file (within 10 s, while it runs).
    private static func waitForPidFile(_ path: String, _ process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) != nil {
                return true
            }
            usleep(10_000)
        }
        return false
    }

    public func url(_ path: String, host: String = "127.0.0.1", scheme: String = "http") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    /// Access log lines: `METHOD URI STATUS "RANGE" BYTES CONNECTION-SERIAL MSEC`.
    public func accessLog() -> [String] {
        let text = (try? String(contentsOfFile: prefix.file("logs/access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops nginx and removes its prefix (the served files, which in Bench are 1 GiB, and the
    /// logs): read `accessLog()` before.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        prefix.remove()
        guard let loopback else { return }
        reservation.withLock { held in
            if held < 0, let (fd, _) = TestServer.bound(ipv6: false, ipv4Address: loopback, port: UInt16(port)) { held = fd }
        }
    }
}

/// A CA and a server certificate for `localhost` (no IP address in it), plus an expired one for
/// the same name and key, made with the `openssl` command at test time so nothing that expires
/// is committed.
public struct TestCertificates: Sendable {
    public let caCertificate: String
    public let serverCertificate: String
    public let serverKey: String
    /// Valid only on 2020-01-01.
    public let expiredCertificate: String

    public init(in directory: TemporaryDirectory) throws {
        guard let openssl = findExecutable("openssl") else { throw HarnessError("openssl is not installed") }
        let d = directory.path
        try "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: d + "/ext.cnf", atomically: true, encoding: .utf8)
        // `openssl ca` is the one subcommand of OpenSSL 3.0 that accepts a start date in the past.
        try """
        [ca]
        default_ca = test
        [test]
        database = \(d)/index.txt
        new_certs_dir = \(d)
        serial = \(d)/serial
        default_md = sha256
        policy = anything
        [anything]
        commonName = supplied
        [server]
        subjectAltName = DNS:localhost
        """.write(toFile: d + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: d + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: d + "/serial", atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "2", "-subj", "/CN=fastget test CA",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", d + "/server.key", "-out", d + "/server.csr", "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key",
                "-CAcreateserial", "-out", d + "/server.pem", "-days", "2", "-extfile", d + "/ext.cnf",
            ],
            [
                "ca", "-batch", "-config", d + "/ca.cnf", "-cert", d + "/ca.pem", "-keyfile", d + "/ca.key",
                "-in", d + "/server.csr", "-out", d + "/expired.pem", "-extensions", "server",
                "-startdate", "20200101000000Z", "-enddate", "20200102000000Z",
            ],
        ]
        for step in steps {
            let result = try runProcess(openssl, step)
            guard result.status == 0 else { throw HarnessError("openssl \(step[0]) failed: \(result.stderr)") }
        }
        _ = try runProcess("/bin/chmod", ["a+r", d + "/server.key", d + "/server.pem", d + "/expired.pem"])
        expiredCertificate = d + "/expired.pem"
        caCertificate = d + "/ca.pem"
        serverCertificate = d + "/server.pem"
        serverKey = d + "/server.key"
    }
}
