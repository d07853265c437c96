import FastgetTestSupport
import Foundation
import Glibc

/// The servers of a lab run: nginx in the server namespace (one location per cap), nginx on
/// loopback, the embedded server for the paced and uneven loopback cases; and for each run, the
/// connections it opened as the server saw them.
final class LabServers {
    let network: LabNetwork?
    private let remote: Nginx?
    private let local: Nginx?
    private let embedded: EmbeddedPeer?
    private var logOffset = 0

    init(_ profiles: [LabProfile], data: DataFile, cleanup: LabCleanup) throws {
        let root = data.directory.path
        func locations(_ chosen: [LabProfile]) -> String {
            Set(chosen.compactMap { $0.nginxLocation(root: root) }).sorted().joined(separator: "\n")
        }
        let linked = profiles.filter { $0.loopback == nil }
        if !linked.isEmpty {
            let network = try LabNetwork()
            cleanup.add { network.remove() }
            self.network = network
            let server = try Nginx(
                extraConfiguration: locations(linked), address: (LabNetwork.serverAddress, 80), wrapper: network.inside(network.server))
            cleanup.add { server.stop() }
            remote = server
        } else {
            network = nil
            remote = nil
        }
        let looped = profiles.filter { $0.loopback == .nginx }
        if !looped.isEmpty {
            let server = try Nginx(extraConfiguration: locations(looped))
            cleanup.add { server.stop() }
            local = server
        } else {
            local = nil
        }
        if profiles.contains(where: { $0.loopback == .paced || $0.loopback == .uneven }) {
            let peer = try EmbeddedPeer(data: data)
            cleanup.add { peer.stop() }
            embedded = peer
        } else {
            embedded = nil
        }
    }

    /// Sets up the profile's link and returns its file's URL.
    func prepare(_ profile: LabProfile, size: Int64) throws -> String {
        let name = "data-\(size).bin"
        switch profile.loopback {
        case .none:
            try network!.configure(profile)
            return "http://\(LabNetwork.serverAddress)\(profile.location)\(name)"
        case .some(.nginx): return local!.url(profile.location + name)
        case .some(.paced), .some(.uneven): return try embedded!.url(kind(profile), size: size)
        }
    }

    /// What a tool runs under: the client namespace for the emulated links.
    func wrapper(_ profile: LabProfile) -> [String] {
        profile.loopback == nil ? network!.inside(network!.client) : []
    }

    func beginRun(_ profile: LabProfile) {
        if let nginx = nginx(profile) { logOffset = nginx.accessLog().count }
        if profile.loopback == .paced || profile.loopback == .uneven { embedded!.beginRun(kind(profile)) }
    }

    /// The connections the run opened: distinct connection serials in the access log lines it
    /// added (nginx), or the connections the embedded server accepted.
    func endRun(_ profile: LabProfile) -> Int? {
        guard let nginx = nginx(profile) else { return embedded?.connectionsOpened(kind(profile)) }
        // nginx logs a request when it ends, which for one the client abandoned is when nginx
        // notices: wait until the log stops growing (at most 2 s).
        var lines = nginx.accessLog()
        let deadline = monotonicNow() + 2
        while monotonicNow() < deadline {
            usleep(150_000)
            let now = nginx.accessLog()
            if now.count == lines.count { break }
            lines = now
        }
        return LabReport.connections(inLog: lines.dropFirst(logOffset).map { Substring($0) })
    }

    private func nginx(_ profile: LabProfile) -> Nginx? {
        switch profile.loopback {
        case .none: remote
        case .some(.nginx): local
        case .some(.paced), .some(.uneven): nil
        }
    }

    private func kind(_ profile: LabProfile) -> ScenarioKind { profile.loopback == .uneven ? .uneven : .capped }
}
