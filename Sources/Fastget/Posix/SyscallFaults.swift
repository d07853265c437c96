#if FASTGET_FAULTS
internal import Glibc

/// Fault injection at the system-call layer, for test builds only. It exists when the
/// compilation condition FASTGET_FAULTS is set (Package.swift sets it for debug builds), so
/// `swift build -c release` and the static binary contain none of it.
///
/// Every call made through `retryingOnInterrupt` asks `error(at:)` first, and the read and
/// write loops ask `shortened(_:at:)` for their byte count, so a fault takes the same path as
/// the real one: an injected EINTR goes round the retry loop, a short count through the loops
/// that continue after short transfers, an injected error up to the download layer.
///
/// Armed by the environment variable `FASTGET_FAULTS`, read once, at the first hooked call.
/// Unset or empty, nothing is injected and each hook costs one check of a lazy global.
///
///     FASTGET_FAULTS=seed=42,rate=0.02                   random faults of every kind
///     FASTGET_FAULTS=seed=7,rate=0.05,kinds=eintr+short  only faults that must stay invisible
///     FASTGET_FAULTS=fail=fdatasync@2                    the second fdatasync fails with EIO
///     FASTGET_FAULTS=fail=splice-in:EINVAL               every socket-to-pipe splice fails
///
/// Items, separated by commas:
/// - `seed=N`: seeds the random choices (default 1). Threads draw from one sequence, so a
///   seed fixes the mix of faults, not their exact order.
/// - `rate=P`: the chance (0 to 0.5) that a hooked call gets a random fault (default 0).
/// - `kinds=K+K…`: the random kinds allowed (default all four):
///   - `eintr`: the call fails with EINTR before it reaches the kernel; retried invisibly.
///   - `short`: a read or write moves fewer bytes than asked (recv, send, pread, pwrite, both
///     splices); the loops continue invisibly.
///   - `fail`: a local write, sync, rename or truncation (pwrite, splice, fdatasync, fsync,
///     rename, ftruncate) fails with EIO or ENOSPC: the download stops with exit 74, resumable.
///   - `reset`: a socket read or write (recv, send, splice-in) fails with ECONNRESET: retried
///     from the watermark.
/// - `fail=SITE[@N[+]][:ERRNO]`: the N-th call at SITE fails (with `+`, that one and every
///   later one; without `@N`, every one) with ERRNO: a name from `errnoNames` or a number
///   (default EIO). May be repeated. EINTR only for a single call: a retry loop would spin.
///
/// Sites: open, fstat, pread, pwrite, ftruncate, fdatasync, fsync, rename (also the final
/// rename that never replaces), recv, send, splice (pipe to file), splice-in (socket to pipe;
/// its errors keep the operation name `recv`). Three more are only counted, never failed:
/// lookup (`stat`, `lstat`, `statvfs` of a path), unlink and fallocate. TLS traffic goes through OpenSSL's own reads
/// and writes and is not hooked: over TLS only the file calls see faults.
///
/// An armed process writes one line to standard error when it exits (`atexit`):
///
///     fastget-faults: seed=42 eintr=3 short-read=12 short-write=4 reset=1 fail=1 fail-open=0 …
///     fail-splice-in=0 calls-open=5 … calls-splice-in=97
///
/// `fail-SITE` counts every error injected at SITE, random or by `fail=` (EINTR counts as
/// `eintr`, ECONNRESET on a socket as `reset`); `calls-SITE` the calls made there, injected
/// faults included.
enum SyscallFaults {
    enum Site: Int, CaseIterable {
        case open, fstat, pread, pwrite, ftruncate, fdatasync, fsync, rename, recv, send, splice, spliceIn
        /// Counted only, never failed: what a file costs in path lookups (`stat`, `lstat`,
        /// `statvfs`), removals (`unlink`) and preallocations, so that a test can hold a list's
        /// files to it.
        case lookup, unlink, fallocate

        var name: String { self == .spliceIn ? "splice-in" : "\(self)" }

        init?(name: String) {
            guard let site = Site.allCases.first(where: { $0.name == name }) else { return nil }
            self = site
        }

        var isRead: Bool { self == .recv || self == .pread || self == .spliceIn }
        var isWrite: Bool { self == .send || self == .pwrite || self == .splice }
        /// Local operations whose failure a download must survive with its journal true.
        var canFail: Bool { [.pwrite, .splice, .ftruncate, .fdatasync, .fsync, .rename].contains(self) }
        var canReset: Bool { self == .recv || self == .send || self == .spliceIn }
        /// Only counted (`counted(_:)`): `fail=` at such a site never fires.
        var isCountedOnly: Bool { self == .lookup || self == .unlink || self == .fallocate }
    }

    enum Kind: String, CaseIterable { case eintr, short, fail, reset }

    /// One `fail=` item.
    struct Target: Equatable {
        let site: Site
        /// The first call at `site` (counting from 1) that fails.
        let call: Int
        /// Whether every call from `call` on fails, not just that one.
        let onward: Bool
        let errno: Int32

        func matches(_ site: Site, call: Int) -> Bool {
            site == self.site && (onward ? call >= self.call : call == self.call)
        }
    }

    struct Configuration: Equatable {
        var seed: UInt64 = 1
        var rate = 0.0
        var kinds = Set(Kind.allCases)
        var targets: [Target] = []

        /// Parses the value of `FASTGET_FAULTS`; throws the item it cannot read.
        init(parsing text: String) throws(ParseError) {
            for item in text.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ParseError(item: String(item)) }
                switch parts[0] {
                case "seed":
                    guard let seed = UInt64(parts[1]) else { throw ParseError(item: String(item)) }
                    self.seed = seed
                case "rate":
                    guard let rate = Double(parts[1]), rate >= 0, rate <= 0.5 else { throw ParseError(item: String(item)) }
                    self.rate = rate
                case "kinds":
                    var kinds = Set<Kind>()
                    for name in parts[1].split(separator: "+") {
                        guard let kind = Kind(rawValue: String(name)) else { throw ParseError(item: String(item)) }
                        kinds.insert(kind)
                    }
                    self.kinds = kinds
                case "fail":
                    guard let target = Configuration.target(parts[1]) else { throw ParseError(item: String(item)) }
                    targets.append(target)
                default:
                    throw ParseError(item: String(item))
                }
            }
        }

        /// `SITE[@N[+]][:ERRNO]`.
        private static func target(_ text: String) -> Target? {
            let halves = text.split(separator: ":", maxSplits: 1).map(String.init)
            var code = EIO
            if halves.count == 2 {
                guard let parsed = errnoNames[halves[1]] ?? Int32(halves[1]), parsed > 0 else { return nil }
                code = parsed
            }
            let location = halves[0].split(separator: "@", maxSplits: 1).map(String.init)
            guard let site = Site(name: location[0]), !site.isCountedOnly else { return nil }
            var call = 1
            var onward = true
            if location.count == 2 {
                var number = Substring(location[1])
                onward = number.hasSuffix("+")
                if onward { number = number.dropLast() }
                guard let parsed = Int(number), parsed >= 1 else { return nil }
                call = parsed
            }
            if code == EINTR && onward { return nil }
            return Target(site: site, call: call, onward: onward, errno: code)
        }
    }

    struct ParseError: Error, Equatable {
        let item: String
    }

    static let errnoNames: [String: Int32] = [
        "EIO": EIO, "ENOSPC": ENOSPC, "EDQUOT": EDQUOT, "EINVAL": EINVAL, "ENOSYS": ENOSYS,
        "ECONNRESET": ECONNRESET, "EPIPE": EPIPE, "EINTR": EINTR, "EAGAIN": EAGAIN, "EACCES": EACCES,
    ]

    /// What an armed process has done so far.
    private struct State {
        var random: UInt64
        var calls = [Int](repeating: 0, count: Site.allCases.count)
        var failures = [Int](repeating: 0, count: Site.allCases.count)
        var interrupts = 0
        var shortReads = 0
        var shortWrites = 0
        var resets = 0

        /// splitmix64: small, seedable, good enough to pick faults.
        mutating func next() -> UInt64 {
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func chance(_ rate: Double) -> Bool {
            Double(next() >> 11) * 0x1p-53 < rate
        }
    }

    private struct Armed: Sendable {
        let configuration: Configuration
        let state: Locked<State>
    }

    /// Read once; nil when `FASTGET_FAULTS` is unset or empty (a lazy global: thread-safe).
    private static let armed: Armed? = {
        guard let value = getenv("FASTGET_FAULTS"), value.pointee != 0 else { return nil }
        let text = String(cString: value)
        let configuration: Configuration
        do throws(ParseError) {
            configuration = try Configuration(parsing: text)
        } catch {
            // A test build run with a spec it cannot read: say so loudly rather than run unarmed.
            let message = "fastget-faults: cannot read FASTGET_FAULTS item '\(error.item)'\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            exit(64)
        }
        atexit { SyscallFaults.writeReport() }
        return Armed(configuration: configuration, state: Locked(State(random: configuration.seed)))
    }()

    /// The errno to fail a call at `operation` with, before it reaches the kernel; nil to make
    /// the real call.
    static func error(at operation: String) -> Int32? {
        guard let armed, let site = Site(name: operation), !site.isCountedOnly else { return nil }
        let configuration = armed.configuration
        return armed.state.withLock { state -> Int32? in
            state.calls[site.rawValue] += 1
            let call = state.calls[site.rawValue]
            var code = configuration.targets.first { $0.matches(site, call: call) }?.errno
            if code == nil, configuration.rate > 0 {
                var choices: [Kind] = [.eintr]
                if site.canFail { choices.append(.fail) }
                if site.canReset { choices.append(.reset) }
                choices.removeAll { !configuration.kinds.contains($0) }
                if !choices.isEmpty, state.chance(configuration.rate) {
                    switch choices[Int(state.next() % UInt64(choices.count))] {
                    case .eintr: code = EINTR
                    case .reset: code = ECONNRESET
                    default: code = state.next() % 2 == 0 ? EIO : ENOSPC
                    }
                }
            }
            guard let code else { return nil }
            switch code {
            case EINTR: state.interrupts += 1
            case ECONNRESET where site.canReset: state.resets += 1
            default: state.failures[site.rawValue] += 1
            }
            return code
        }
    }

    /// Counts a call at a site that is only counted (`Site.isCountedOnly`).
    static func counted(_ site: Site) {
        guard let armed else { return }
        armed.state.withLock { $0.calls[site.rawValue] += 1 }
    }

    /// `count`, or fewer bytes (at least one) when a short transfer is injected at `operation`.
    static func shortened(_ count: Int, at operation: String) -> Int {
        guard let armed, count > 1, armed.configuration.rate > 0, armed.configuration.kinds.contains(.short),
            let site = Site(name: operation), site.isRead || site.isWrite
        else { return count }
        let rate = armed.configuration.rate
        return armed.state.withLock { state in
            guard state.chance(rate) else { return count }
            if site.isRead { state.shortReads += 1 } else { state.shortWrites += 1 }
            return 1 + Int(state.next() % UInt64(count - 1))
        }
    }

    /// The report line (without its newline); nil when not armed.
    static func report() -> String? {
        guard let armed else { return nil }
        return armed.state.withLock { state in
            var line = "fastget-faults: seed=\(armed.configuration.seed) eintr=\(state.interrupts)"
            line += " short-read=\(state.shortReads) short-write=\(state.shortWrites) reset=\(state.resets)"
            line += " fail=\(state.failures.reduce(0, +))"
            for site in Site.allCases { line += " fail-\(site.name)=\(state.failures[site.rawValue])" }
            for site in Site.allCases { line += " calls-\(site.name)=\(state.calls[site.rawValue])" }
            return line
        }
    }

    private static func writeReport() {
        guard let line = report() else { return }
        _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
    }
}

/// `count`, or fewer when the fault injector shortens this transfer.
@inline(__always)
func faultShortened(_ count: Int, _ operation: String) -> Int {
    SyscallFaults.shortened(count, at: operation)
}

/// Counts a path lookup (`stat`, `lstat`, `statvfs`) for the fault injector's report.
@inline(__always)
func faultCountLookup() { SyscallFaults.counted(.lookup) }

/// Counts an `unlink` for the fault injector's report.
@inline(__always)
func faultCountUnlink() { SyscallFaults.counted(.unlink) }

/// Counts a `fallocate` for the fault injector's report.
@inline(__always)
func faultCountFallocate() { SyscallFaults.counted(.fallocate) }
#else
/// Without FASTGET_FAULTS: `count`, inlined away.
@inline(__always)
func faultShortened(_ count: Int, _ operation: String) -> Int { count }

/// Without FASTGET_FAULTS: nothing.
@inline(__always)
func faultCountLookup() {}

/// Without FASTGET_FAULTS: nothing.
@inline(__always)
func faultCountUnlink() {}

/// Without FASTGET_FAULTS: nothing.
@inline(__always)
func faultCountFallocate() {}
#endif
