import FastgetTestSupport
import Foundation
import Glibc

/// Two network namespaces joined by a veth pair: the server's (nginx) and the client's (the
/// tools). Addresses come from 192.0.2.0/24, a documentation range with no route anywhere:
/// nothing the lab sends can leave the pair.
///
/// A link is emulated without netem (the kernel this runs on may lack it):
/// - rate: HTB on the server's egress, with a pfifo leaf of about 2 × the bandwidth-delay
///   product, so a sender that overshoots sees drops, as at a real bottleneck;
/// - loss: iptables `statistic` drops in the client's raw PREROUTING, so the server's data
///   segments are lost and its congestion control reacts;
/// - delay: the client's outgoing packets go through NFQUEUE to `bench-delay`, which holds each
///   for the whole RTT (one direction carries all of it);
/// - per-connection kernel cap: an HTB leaf class per bucket of a `u32` hash of the client port.
/// Segmentation offloads are off on both ends, or the shaper and the loss would see 64 KiB
/// blobs; CUBIC is set per route (the host default may be BBR, which most servers do not run).
final class LabNetwork: @unchecked Sendable {
    static let serverAddress = "192.0.2.1"
    static let clientAddress = "192.0.2.2"
    static let prefix = "fgl-"
    let server: String
    let client: String
    private var delay: Process?
    private let lock = NSLock()
    private var removed = false

    /// The commands the lab needs, missing ones named; nil when all are there and we are root.
    static func missingPrerequisites() -> String? {
        if geteuid() != 0 { return "the network lab needs root" }
        let missing = ["ip", "tc", "iptables", "ethtool", "nginx"].filter { findExecutable($0) == nil }
        return missing.isEmpty ? nil : "the network lab needs \(missing.joined(separator: ", ")), not found"
    }

    /// Makes the namespaces (named after this process) and the veth pair between them.
    init() throws {
        let pid = getpid()
        server = "\(LabNetwork.prefix)s-\(pid)"
        client = "\(LabNetwork.prefix)c-\(pid)"
        do {
            try ip(["netns", "add", server])
            try ip(["netns", "add", client])
            try ip(["link", "add", "fgs0", "netns", server, "type", "veth", "peer", "name", "fgc0", "netns", client])
            for (namespace, device, address) in [(server, "fgs0", LabNetwork.serverAddress), (client, "fgc0", LabNetwork.clientAddress)] {
                try ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", device])
                try ip(["-n", namespace, "link", "set", device, "up"])
                try ip(["-n", namespace, "link", "set", "lo", "up"])
                try run("ethtool", ["-K", device, "tso", "off", "gso", "off", "gro", "off"], in: namespace)
                // Every run starts cold: no ssthresh or RTT cached from the run before, which would
                // bias each cell's slow start by the cell before it.
                try run("sysctl", ["-q", "-w", "net.ipv4.tcp_no_metrics_save=1"], in: namespace)
                try ip([
                    "-n", namespace, "route", "replace", "192.0.2.0/24", "dev", device, "proto", "kernel", "scope", "link", "src", address,
                    "congctl", "cubic",
                ])
            }
        } catch {
            remove()
            throw error
        }
    }

    /// `ip netns exec NS`: what runs a command in a namespace.
    func inside(_ namespace: String) -> [String] { [findExecutable("ip") ?? "/usr/sbin/ip", "netns", "exec", namespace] }

    /// Sets the link to `profile`: the shaper, the loss, and a delay line for its RTT.
    func configure(_ profile: LabProfile) throws {
        try? run("tc", ["qdisc", "del", "dev", "fgs0", "root"], in: server)
        try run("iptables", ["-t", "raw", "-F"], in: client)
        stopDelay()
        let batch = LabNetwork.shaper(profile)
        let file = NSTemporaryDirectory() + "fastget-lab-tc-\(getpid())"
        try batch.joined(separator: "\n").appending("\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { unlink(file) }
        try run("tc", ["-batch", file], in: server)
        if profile.loss > 0 {
            try run(
                "iptables",
                ["-t", "raw", "-A", "PREROUTING", "-m", "statistic", "--mode", "random", "--probability", "\(profile.loss)", "-j", "DROP"],
                in: client)
        }
        try startDelay(milliseconds: profile.rttMilliseconds)
        try run("iptables", ["-t", "raw", "-A", "OUTPUT", "-j", "NFQUEUE", "--queue-num", "0"], in: client)
    }

    /// The `tc -batch` lines for a profile: HTB at the link rate with a pfifo of about 2 × BDP,
    /// and for a kernel cap 256 leaf classes at the cap, one per hash bucket of the client port.
    static func shaper(_ profile: LabProfile) -> [String] {
        let device = "dev fgs0"
        let bits = Int(profile.megabits * 1_000_000)
        // Bursts of a millisecond at the rate: HTB's default is too small to reach 1 Gbit/s.
        let burst = max(bits / 8 / 1000, 16_000)
        func queue(_ bits: Int) -> Int { max(2 * Int(Double(bits) / 8 * profile.rttMilliseconds / 1000 / 1514), 64) }
        var lines = [
            "qdisc add \(device) root handle 1: htb default 1",
            "class add \(device) parent 1: classid 1:1 htb rate \(bits)bit ceil \(bits)bit burst \(burst) cburst \(burst) quantum 30000",
        ]
        guard case .kernel(let megabits) = profile.cap else {
            return lines + ["qdisc add \(device) parent 1:1 handle 10: pfifo limit \(queue(bits))"]
        }
        let capBits = Int(megabits * 1_000_000)
        // HTB guarantees every class its `rate` whatever its parent has left, so leaves at the
        // cap would add up past the link. Each leaf is guaranteed a 256th of the link and may
        // borrow up to the cap (`ceil`); the link class's ceiling bounds the sum. Packets no
        // filter matches go to a leaf of their own (a default that is not a leaf would send
        // them unshaped).
        let share = max(bits / 256, 8000)
        lines[0] = "qdisc add \(device) root handle 1: htb default 2"
        lines += [
            "class add \(device) parent 1:1 classid 1:2 htb rate \(share)bit ceil \(bits)bit quantum 1514",
            "qdisc add \(device) parent 1:2 pfifo limit \(queue(bits))",
        ]
        // Client ports of successive connections to one server go up by 2 (Linux picks even
        // ports first), so the hash drops the lowest bit: bucket = (port >> 1) & 255, and 128
        // successive connections land in 128 different classes.
        lines += [
            "filter add \(device) parent 1: prio 1 handle 2: protocol ip u32 divisor 256",
            "filter add \(device) parent 1: prio 1 protocol ip u32 ht 800:: match ip protocol 6 0xff hashkey mask 0x000001fe at 20 link 2:",
        ]
        for bucket in 0..<256 {
            let classID = String(0x100 + bucket, radix: 16)
            lines.append(
                "class add \(device) parent 1:1 classid 1:\(classID) htb rate \(share)bit ceil \(capBits)bit quantum 1514")
            lines.append("qdisc add \(device) parent 1:\(classID) pfifo limit \(queue(capBits))")
            lines.append(
                "filter add \(device) parent 1: prio 1 protocol ip u32 ht 2:\(String(bucket, radix: 16)): match u32 0 0 flowid 1:\(classID)")
        }
        return lines
    }

    private func startDelay(milliseconds: Double) throws {
        let binary = URL(fileURLWithPath: try selfExecutable()).deletingLastPathComponent().path + "/bench-delay"
        let process = Process()
        let command = inside(client) + [binary, "0", "\(milliseconds)"]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        lock.withLock { delay = process }
        // "ready" once the queue is bound: only then may packets be sent to it.
        let ready = String(decoding: pipe.fileHandleForReading.readData(ofLength: 6), as: UTF8.self)
        guard ready.hasPrefix("ready") else { throw HarnessFailure("bench-delay did not start") }
    }

    private func stopDelay() {
        guard let process = lock.withLock({ delay }) else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        lock.withLock { delay = nil }
    }

    /// Ends the delay line, then every process left in the namespaces (by pid), and deletes
    /// them, which takes the veth pair, the qdiscs and the iptables rules with them. Idempotent.
    func remove() {
        guard
            lock.withLock({ () -> Bool in
                defer { removed = true }
                return !removed
            })
        else { return }
        stopDelay()
        LabNetwork.delete([server, client])
    }

    /// Deletes namespaces after ending their processes: SIGTERM, then SIGKILL after 2 s.
    static func delete(_ namespaces: [String]) {
        func pids(_ namespace: String) -> [pid_t] {
            let output = (try? runProcess(findExecutable("ip") ?? "/usr/sbin/ip", ["netns", "pids", namespace], timeout: 10))?.stdout ?? ""
            return output.split(separator: "\n").compactMap { pid_t($0) }
        }
        for signal in [SIGTERM, SIGKILL] {
            let running = namespaces.flatMap(pids)
            for pid in running { kill(pid, signal) }
            let deadline = monotonicNow() + 2
            while !namespaces.flatMap(pids).isEmpty && monotonicNow() < deadline { usleep(20_000) }
        }
        for namespace in namespaces { _ = try? runProcess(findExecutable("ip") ?? "/usr/sbin/ip", ["netns", "del", namespace], timeout: 10) }
    }

    /// Namespaces of earlier lab runs whose process is gone (`fgl-s-PID`, `fgl-c-PID`).
    static func removeLeftovers() {
        let list = (try? runProcess(findExecutable("ip") ?? "/usr/sbin/ip", ["netns", "list"], timeout: 10))?.stdout ?? ""
        let stale = list.split(separator: "\n").compactMap { line -> String? in
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix + "s-") || name.hasPrefix(prefix + "c-"), let pid = pid_t(name.dropFirst(prefix.count + 2)) else {
                return nil
            }
            return kill(pid, 0) != 0 && errno == ESRCH ? name : nil
        }
        if !stale.isEmpty { delete(stale) }
    }

    private func ip(_ arguments: [String]) throws { try run("ip", arguments, in: nil) }

    /// Runs a command (in `namespace`, when given) and throws with its output when it fails.
    private func run(_ name: String, _ arguments: [String], in namespace: String?) throws {
        guard let path = findExecutable(name) else { throw HarnessFailure("\(name) not found") }
        let command = (namespace.map { inside($0) } ?? []) + [path] + arguments
        let result = try runProcess(command[0], Array(command.dropFirst()), timeout: 60)
        guard result.status == 0 else {
            throw HarnessFailure(
                "\(([name] + arguments).joined(separator: " ")) failed: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}
