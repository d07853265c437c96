/// How the server caps each connection in a lab profile.
enum LabCap: Equatable {
    case none
    /// Kernel pacing: an HTB class per flow (a hash of the client port) at this rate, smooth.
    case kernel(megabits: Double)
    /// nginx `limit_rate`: about a second's worth at full speed, then the cap.
    case limitRate(String)
    /// A token bucket with a large burst: nginx `limit_rate_after`, then `limit_rate`.
    case bucket(after: String, rate: String)
}

/// The lab's loopback cases: no namespaces, no emulated link.
enum LabLoopback: Equatable {
    /// nginx on loopback, unlimited (or with the profile's nginx cap).
    case nginx
    /// The embedded server's per-connection pacing: every connection at 2 MiB/s.
    case paced
    /// The embedded server, every 4th connection at 0.5 MiB/s, the others at 2 MiB/s.
    case uneven
}

/// One link of the network lab: a rate, a round-trip time and a loss rate between two network
/// namespaces, a per-connection cap on the server, and a file size; or a loopback case.
struct LabProfile: Equatable {
    let name: String
    /// The bottleneck rate, Mbit/s (0 for loopback).
    var megabits = 0.0
    var rttMilliseconds = 0.0
    /// Fraction of the packets towards the client dropped (0.005 = 0.5%).
    var loss = 0.0
    var sizeMiB: Int64 = 64
    var cap = LabCap.none
    /// Non-nil for the loopback cases.
    var loopback: LabLoopback? = nil

    /// The profiles, in the order `--lab` runs them without `--profiles`.
    static let all: [LabProfile] = [
        LabProfile(name: "lan", megabits: 1000, rttMilliseconds: 1),
        LabProfile(name: "wan", megabits: 100, rttMilliseconds: 40, cap: .kernel(megabits: 8)),
        LabProfile(name: "shared", megabits: 100, rttMilliseconds: 40),
        LabProfile(name: "lossy", megabits: 100, rttMilliseconds: 80, loss: 0.005),
        // 32 MiB: at 64 a single connection on this link needs many minutes, and every cell
        // would run into its deadline.
        LabProfile(name: "long", megabits: 20, rttMilliseconds: 200, loss: 0.01, sizeMiB: 32),
        LabProfile(name: "fast-lossy", megabits: 1000, rttMilliseconds: 10, loss: 0.001, sizeMiB: 256),
        LabProfile(name: "burst-cap", megabits: 100, rttMilliseconds: 40, cap: .limitRate("1m")),
        LabProfile(name: "bucket", megabits: 100, rttMilliseconds: 40, cap: .bucket(after: "4m", rate: "1m")),
        LabProfile(name: "small", megabits: 100, rttMilliseconds: 80, sizeMiB: 4),
        LabProfile(name: "loop", loopback: .nginx),
        LabProfile(name: "loop-paced", loopback: .paced),
        LabProfile(name: "loop-uneven", loopback: .uneven),
        LabProfile(name: "loop-limit-rate", sizeMiB: 128, cap: .limitRate("2m"), loopback: .nginx),
    ]

    /// `--profiles a,b` (nil: all of them), in the order given.
    static func parse(_ list: String?) throws -> [LabProfile] {
        guard let list else { return all }
        let names = list.split(separator: ",").map(String.init)
        guard !names.isEmpty else { throw HarnessFailure("bad --profiles '\(list)'") }
        return try names.map { name in
            guard let profile = all.first(where: { $0.name == name }) else {
                throw HarnessFailure("unknown profile '\(name)' (known: \(all.map(\.name).joined(separator: ", ")))")
            }
            return profile
        }
    }

    /// The URL path the profile's file is served under: one nginx location per cap.
    var location: String {
        switch cap {
        case .none, .kernel: "/plain/"
        case .limitRate(let rate): "/limit-\(rate)/"
        case .bucket(let after, let rate): "/bucket-\(after)-\(rate)/"
        }
    }

    /// The nginx location block that serves `location` from `root`; nil for the embedded cases.
    func nginxLocation(root: String) -> String? {
        guard loopback == nil || loopback == .nginx else { return nil }
        let limits: String
        switch cap {
        case .none, .kernel: limits = ""
        case .limitRate(let rate): limits = "limit_rate \(rate);"
        case .bucket(let after, let rate): limits = "limit_rate_after \(after); limit_rate \(rate);"
        }
        return "location \(location) { alias \(root)/; \(limits) }"
    }

    /// The link and the cap in words, for the profile's header line.
    var summary: String {
        var parts: [String] = []
        switch loopback {
        case .some(.paced): parts.append("loopback, embedded server, 2 MiB/s per connection")
        case .some(.uneven): parts.append("loopback, embedded server, every 4th connection at 0.5 MiB/s, the others 2 MiB/s")
        case .some(.nginx): parts.append("loopback, nginx")
        case .none:
            parts.append(megabits >= 1000 ? "\(format(megabits / 1000)) Gbit/s" : "\(format(megabits)) Mbit/s")
            parts.append("\(format(rttMilliseconds)) ms RTT")
            if loss > 0 { parts.append("\(format(loss * 100))% loss") }
        }
        switch cap {
        case .none: break
        case .kernel(let megabits): parts.append("kernel cap \(format(megabits)) Mbit/s per connection")
        case .limitRate(let rate): parts.append("nginx limit_rate \(rate)")
        case .bucket(let after, let rate): parts.append("nginx limit_rate_after \(after), limit_rate \(rate)")
        }
        return parts.joined(separator: ", ")
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
