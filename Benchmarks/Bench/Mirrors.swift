import FastgetTestSupport
import Foundation

/// The mirrors scenarios' two embedded servers of one file, each capping its connections
/// (`Caps.mirrorRate`); in `mirrors-dying` the second stops `Caps.dyingAfter` seconds into
/// every run (a new one takes its place for the next run).
final class MirrorSet {
    let kind: ScenarioKind
    let path: String
    private(set) var servers: [TestServer] = []
    private var timer: DispatchWorkItem?

    init(kind: ScenarioKind, dataPath: String) throws {
        self.kind = kind
        path = dataPath
        servers = [try makeServer(0), try makeServer(1)]
    }

    private func makeServer(_ index: Int) throws -> TestServer {
        let path = self.path
        let rate = Caps.mirrorRate(kind, server: index)
        let configuration = TestServer.Configuration(rate: { @Sendable _ in rate })
        return try TestServer(configuration) { request in
            let name = request.target.split(separator: "/").last ?? ""
            guard name.hasPrefix("data-"), let size = Int64(name.dropFirst(5).dropLast(4)) else { return .status(404) }
            var file = TestFile([])
            file.content = .file(path: path, length: size)
            // Mirrors are other servers: each has its own ETag.
            file.etag = "\"mirror-\(index)\""
            return .file(file)
        }
    }

    /// The file's URL on each server, the first first.
    func urls(size: Int64) -> [String] { servers.map { $0.url("/data-\(size).bin") } }

    func beginRun() throws {
        timer?.cancel()
        if kind == .mirrorsDying {
            servers[1].stop()
            servers[1] = try makeServer(1)
            let dying = servers[1]
            let work = DispatchWorkItem { dying.stop() }
            timer = work
            DispatchQueue.global().asyncAfter(deadline: .now() + Caps.dyingAfter, execute: work)
        }
        servers.forEach { $0.clearRecords() }
    }

    /// The run as the servers saw it: the finishes' spread, the connections that carried data
    /// on either server; the ideal is the scenario's (`Caps.mirrorIdeal`), set by the caller.
    func endRun() -> RunStats {
        timer?.cancel()
        var finishes: [Double] = []
        var starts: [Double] = []
        var connections = 0
        for server in servers {
            server.waitUntilIdle(timeout: 1)
            let data = server.responses.filter { $0.method == "GET" && $0.bodyBytes > 1 }
            finishes += data.map(\.finished)
            starts += data.map(\.started)
            connections += Set(data.map(\.connection)).count
        }
        var stats = RunStats(tail: finishes.isEmpty ? nil : finishes.max()! - finishes.min()!, ideal: nil)
        stats.connections = connections
        stats.firstStart = starts.min()
        stats.lastStart = starts.max()
        return stats
    }

    func stop() {
        timer?.cancel()
        servers.forEach { $0.stop() }
    }
}
