import FastgetTestSupport
import Foundation

/// What the server saw of one run.
struct RunStats {
    /// Seconds from the first to the last data response finishing; nil when unknown.
    let tail: Double?
    /// The ideal throughput (bytes/s): the sum of the caps of the connections that carried data
    /// (for `auto-capped`: of 16 connections; for the mirrors scenarios, `Caps.mirrorIdeal`).
    var ideal: Double?
    /// How many connections carried data; nil when unknown.
    var connections: Int? = nil
    /// When (CLOCK_MONOTONIC) the first and the last data response started; nil when the
    /// server keeps no such log (nginx, an external server).
    var firstStart: Double? = nil
    var lastStart: Double? = nil
}

extension RunStats {
    /// From a run's data responses: when each finished, and which connections (0-based accept
    /// order) carried them.
    init(_ kind: ScenarioKind, finishes: [Double], connections: Set<Int>) {
        tail = finishes.isEmpty ? nil : finishes.max()! - finishes.min()!
        ideal = Caps.ideal(kind, connections: connections)
        self.connections = connections.isEmpty ? nil : connections.count
    }
}

/// The server Bench measures against.
protocol Peer: AnyObject {
    var name: String { get }
    /// The CA to trust for TLS scenarios.
    var caFile: String? { get }
    func url(_ kind: ScenarioKind, size: Int64) throws -> String
    /// The URLs of the many scenarios' files, in the files' order.
    func urls(_ kind: ScenarioKind, files: ManyFiles) throws -> [String]
    func beginRun(_ kind: ScenarioKind)
    func endRun(_ kind: ScenarioKind) -> RunStats
    func stop()
    /// A mirrors scenario's URLs for this run, the first server's first.
    func mirrorURLs(_ kind: ScenarioKind, size: Int64) throws -> [String]
}

extension Peer {
    func mirrorURLs(_ kind: ScenarioKind, size: Int64) throws -> [String] {
        throw HarnessFailure("the mirrors scenarios run against the embedded server only")
    }
}

/// Generated data on disk, shared by the local peers; every size is a prefix of one file.
final class DataFile {
    let directory: TemporaryDirectory
    let path: String
    let size: Int64

    init(size: Int64) throws {
        directory = try TemporaryDirectory("fastget-bench-data")
        path = directory.file("data.bin")
        self.size = size
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var block = testBytes(count: 16 << 20, seed: 99)
        var written: Int64 = 0
        while written < size {
            let count = Int(min(Int64(block.count), size - written))
            // Each 4 KiB page opens with its own offset, so the file never repeats: bytes written
            // at a wrong offset (a multiple of the block, say) change the SHA-256.
            for page in stride(from: 0, to: count, by: 4096) {
                withUnsafeBytes(of: (written + Int64(page)).littleEndian) {
                    block.replaceSubrange(page..<min(page + 8, count), with: $0.prefix(count - page))
                }
            }
            try handle.write(contentsOf: block[0..<count])
            written += Int64(count)
        }
        try handle.close()
        chmod(path, 0o644)
    }

    /// A file of exactly `size` bytes (a prefix of the data), made on first use.
    func prefix(_ size: Int64, in directory: String) throws -> String {
        let path = "\(directory)/data-\(size).bin"
        if FileManager.default.fileExists(atPath: path) { return path }
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: self.path))
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var copied: Int64 = 0
        while copied < size {
            let chunk = try input.read(upToCount: Int(min(16 << 20, size - copied))) ?? Data()
            if chunk.isEmpty { break }
            try output.write(contentsOf: chunk)
            copied += Int64(chunk.count)
        }
        try input.close()
        try output.close()
        chmod(path, 0o644)
        return path
    }
}

/// The embedded loopback server: one `TestServer` per scenario (plain, TLS, capped, uneven),
/// each with the emulated round-trip time `latency` (seconds).
final class EmbeddedPeer: Peer {
    let name = "embedded"
    let data: DataFile
    let identity: TestIdentity
    let latency: Double
    private var servers: [ScenarioKind: TestServer] = [:]
    private var mirrorSets: [ScenarioKind: MirrorSet] = [:]
    private var many: ManyFiles?

    init(data: DataFile, latency: Double = 0) throws {
        self.data = data
        self.latency = latency
        identity = try TestIdentity(directory: data.directory)
    }

    var caFile: String? { identity.certificatePath }

    private func server(_ kind: ScenarioKind) throws -> TestServer {
        if let server = servers[kind] { return server }
        let path = data.path
        var rate: (@Sendable (Int) -> Double?)?
        if kind.isCapped { rate = { @Sendable index in Caps.rate(kind, connection: index) } }
        let configuration = TestServer.Configuration(tls: kind.usesTLS ? identity : nil, rate: rate, latency: latency)
        let many = self.many.map { (directory: $0.directory, count: $0.names.count, size: Int64($0.size)) }
        let server = try TestServer(configuration) { request in
            let name = request.target.split(separator: "/").last ?? ""
            // /many/f-INDEX.bin: one of the many scenarios' files.
            if request.target.hasPrefix(ManyFiles.folder), let many, let index = ManyFiles.index(of: name), index < many.count {
                var file = TestFile([])
                file.content = .file(path: "\(many.directory)/\(name)", length: many.size)
                file.etag = "\"many-\(index)\""
                return .file(file)
            }
            // /data-SIZE.bin: the first SIZE bytes of the data file.
            guard name.hasPrefix("data-"), let size = Int64(name.dropFirst(5).dropLast(4)) else { return .status(404) }
            var file = TestFile([])
            file.content = .file(path: path, length: size)
            return .file(file)
        }
        servers[kind] = server
        return server
    }

    func url(_ kind: ScenarioKind, size: Int64) throws -> String {
        precondition(size <= data.size)
        return try server(kind).url("/data-\(size).bin")
    }

    func urls(_ kind: ScenarioKind, files: ManyFiles) throws -> [String] {
        precondition(many == nil || many === files, "one set of many files per run")
        many = files
        let server = try server(kind)
        return files.names.map { server.url(ManyFiles.folder + $0) }
    }

    func beginRun(_ kind: ScenarioKind) {
        servers[kind]?.clearRecords()
        try? mirrorSets[kind]?.beginRun()
    }

    func mirrorURLs(_ kind: ScenarioKind, size: Int64) throws -> [String] {
        precondition(size <= data.size)
        if mirrorSets[kind] == nil { mirrorSets[kind] = try MirrorSet(kind: kind, dataPath: data.path) }
        return mirrorSets[kind]!.urls(size: size)
    }

    func endRun(_ kind: ScenarioKind) -> RunStats {
        if let set = mirrorSets[kind] { return set.endRun() }
        guard let server = servers[kind] else { return RunStats(tail: nil, ideal: nil) }
        server.waitUntilIdle(timeout: 1)
        let data = server.responses.filter { $0.method == "GET" && $0.bodyBytes > 1 }
        var stats = RunStats(kind, finishes: data.map(\.finished), connections: Set(data.map(\.connection)))
        stats.firstStart = data.map(\.started).min()
        stats.lastStart = data.map(\.started).max()
        return stats
    }

    /// The connections `kind`'s server accepted since the run began.
    func connectionsOpened(_ kind: ScenarioKind) -> Int? { servers[kind]?.connectionCount }

    func stop() {
        servers.values.forEach { $0.stop() }
        mirrorSets.values.forEach { $0.stop() }
    }
}

/// A local nginx per scenario: `limit_rate` for caps (with a small send buffer, so the cap holds
/// from the first byte), a `map` on the connection serial for the uneven caps.
final class NginxPeer: Peer {
    let name = "nginx"
    let data: DataFile
    let identity: TestIdentity
    private var servers: [ScenarioKind: Nginx] = [:]
    private var logOffsets: [ScenarioKind: Int] = [:]

    init(data: DataFile) throws {
        guard Nginx.executable != nil else { throw HarnessFailure("--nginx: nginx is not installed (apt-get install nginx)") }
        self.data = data
        identity = try TestIdentity(directory: data.directory)
    }

    var caFile: String? { identity.certificatePath }

    private func server(_ kind: ScenarioKind) throws -> Nginx {
        if let server = servers[kind] { return server }
        let tls = kind.usesTLS ? (identity.certificatePath, identity.keyPath) : nil
        let server: Nginx
        switch kind {
        case .raw, .rawTLS, .tiny, .many, .manyTLS, .auto:
            server = try Nginx(tls: tls)
        case .capped, .autoCapped:
            server = try Nginx(extraConfiguration: "limit_rate 2m;", listenOptions: "sndbuf=32k")
        case .mirrors, .mirrorsSlow, .mirrorsDying:
            throw HarnessFailure("the mirrors scenarios run against the embedded server only")
        case .uneven:
            // Serial divisible by 4 → slow: the same rule as the embedded server's "every 4th".
            let map = """
                map $connection $fastget_rate {
                    "~(^|[02468])[048]$" 512k;
                    "~[13579][26]$" 512k;
                    default 2m;
                }
                """
            server = try Nginx(extraConfiguration: "limit_rate $fastget_rate;", httpConfiguration: map, listenOptions: "sndbuf=32k")
        }
        servers[kind] = server
        return server
    }

    func url(_ kind: ScenarioKind, size: Int64) throws -> String {
        let server = try server(kind)
        _ = try data.prefix(size, in: server.root)
        return server.url("/data-\(size).bin", host: kind.usesTLS ? "localhost" : "127.0.0.1", scheme: kind.usesTLS ? "https" : "http")
    }

    func urls(_ kind: ScenarioKind, files: ManyFiles) throws -> [String] {
        let server = try server(kind)
        let folder = server.root + ManyFiles.folder
        if !FileManager.default.fileExists(atPath: folder) { try files.copy(into: folder) }
        return files.names.map {
            server.url(ManyFiles.folder + $0, host: kind.usesTLS ? "localhost" : "127.0.0.1", scheme: kind.usesTLS ? "https" : "http")
        }
    }

    func beginRun(_ kind: ScenarioKind) { logOffsets[kind] = servers[kind]?.accessLog().count ?? 0 }

    func endRun(_ kind: ScenarioKind) -> RunStats {
        guard let server = servers[kind] else { return RunStats(tail: nil, ideal: nil) }
        // METHOD URI STATUS "RANGE" BYTES SERIAL MSEC
        let lines = server.accessLog().dropFirst(logOffsets[kind] ?? 0).map { $0.split(separator: " ") }
        let data = lines.filter { $0.count >= 7 && $0[0] == "GET" && (Int($0[4]) ?? 0) > 1 }
        // nginx numbers connections from 1; the caps' rule counts from 0.
        return RunStats(
            kind, finishes: data.compactMap { Double($0[6]) },
            connections: Set(data.compactMap { Int($0[5]).map { $0 - 1 } }))
    }

    func stop() { servers.values.forEach { $0.stop() } }
}

/// A server elsewhere: throughput only.
final class ExternalPeer: Peer {
    let name = "external"
    let address: String
    init(url: String) { address = url }
    var caFile: String? { nil }
    func url(_ kind: ScenarioKind, size: Int64) throws -> String { address }
    func urls(_ kind: ScenarioKind, files: ManyFiles) throws -> [String] { throw HarnessFailure("--url measures one file") }
    func beginRun(_ kind: ScenarioKind) {}
    func endRun(_ kind: ScenarioKind) -> RunStats { RunStats(tail: nil, ideal: nil) }
    func stop() {}
}
