import Foundation

/// Bench's command line.
struct BenchOptions {
    var quick = false
    var segments: [Int] = [1, 2, 4, 8, 16, 32]
    /// `--segments` as given (the auto scenarios have their own default).
    var explicitSegments: [Int]?
    var repetitions = 3
    /// Bytes of the raw scenarios' file.
    var rawSize: Int64 = 1 << 30
    /// Seconds a capped run takes at the ideal rate (the file is N × cap × this).
    var cappedSeconds = 2.0
    /// Seconds an uneven run takes at the ideal rate.
    var unevenSeconds = 1.0
    /// Seconds an auto-capped run takes at the ideal of 16 capped connections.
    var autoCappedSeconds = 8.0
    /// Seconds a mirrors run takes at the ideal of its connections on both servers.
    var mirrorsSeconds = 4.0
    /// The many scenarios: how many files, how many downloads at once, bytes per file.
    var manyFiles = 300
    var manyParallel = 8
    var manyFileSize = 64 << 10
    /// Emulated round-trip time of the embedded server, milliseconds (0: none).
    var rttMilliseconds = 0.0
    var scenarios: [ScenarioKind] = ScenarioKind.defaults
    var jsonPath: String?
    var nginx = false
    var externalURL: String?
    var compare = false
    /// The fastget binary to measure (default: the one built next to Bench).
    var fastgetPath: String?
    /// Kill-and-resume soak: how many kills (0: no soak).
    var soakKills = 0
    /// Start-up timing: how many `fastget --version` runs (0: none).
    var startupRuns = 0
    /// Print where each cell's fixed costs went (embedded server).
    var phases = false
    /// Where the tools write (a directory made in it); nil: the temporary directory.
    var outputParent: String?
    /// The network lab (`--lab`): its profiles (nil: all), a size for all of them (MiB), and a
    /// directory for fastget's traces of its automatic count.
    var lab = false
    var labProfiles: String?
    var labSizeMiB: Int64?
    var labTrace: String?
    /// `--lab --before PATH`: another fastget (an earlier build) run without `-n` beside this one.
    var labBefore: String?
    /// The lab's fixed counts: `--segments`, else 1, 4, 8, 16, 32 (4 and 16 with `--quick`).
    var labSegments: [Int] { explicitSegments ?? (quick ? [4, 16] : [1, 4, 8, 16, 32]) }

    static let usage = """
        Usage: swift run -c release Bench [options]

        Measures fastget by segment count against an embedded loopback server (no network needed).

          --quick              a short smoke run (64 MiB, N = 1 and 4, one repetition)
          --segments LIST      segment counts, e.g. 1,4,16 (default 1,2,4,8,16,32)
          --repetitions N      runs per cell; the table shows the median and min-max (default 3)
          --size MIB           size of the raw scenarios' file (default 1024)
          --scenarios LIST     raw,raw-tls,capped,uneven,tiny (the default), and the opt-in
                               many,many-tls,auto,auto-capped,mirrors,mirrors-slow,
                               mirrors-dying; or all
          --files K            many: how many files (default 300; 50 with --quick)
          --parallel P         many: downloads at once, fastget -j P (default 8)
          --file-size KIB      many: size of each file (default 64)
          --rtt MS             the embedded server waits MS before each new connection's first
                               read or handshake and before every response head (default 0)
          --nginx              run against a local nginx instead (when installed)
          --url URL            measure an external server (raw scenario only)
          --compare            also time curl, wget2, aria2c, axel, lftp found on PATH
          --out DIR            the tools write into a new directory in DIR (default: the
                               temporary directory), e.g. /dev/shm for tmpfs
          --phases             under each row (embedded server): when the first and the last
                               data request arrived after the spawn
          --json FILE          write every cell as JSON too
          --fastget PATH       measure this fastget binary (e.g. a static build)
          --lab                the network lab (root; iproute2, iptables, ethtool, nginx): links
                               with a rate, an RTT, loss and per-connection caps, between two
                               network namespaces; fastget without -n and at -n 1,4,8,16,32
                               (--segments), with --compare the anchors too
          --profiles LIST      lab profiles (default: all; see Benchmarks/README.md)
          --trace DIR          lab: fastget's runs without -n write FASTGET_TRACE=DIR/PROFILE-REP.trace
          --before PATH        lab: an earlier fastget build, without -n, interleaved beside this one;
                               many, many-tls: an earlier build's cell, run by run beside this one's
          --soak KILLS         instead of measuring: kill fastget KILLS times at random moments,
                               resume each time, and check every file byte for byte
          --startup RUNS       instead of measuring: time `fastget --version` RUNS times as a
                               whole process (median, p10, p90, peak RSS)

        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        func next(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw HarnessFailure("\(name) needs a value") }
            return arguments[index]
        }
        func list(_ text: String) throws -> [Int] {
            let values = text.split(separator: ",").compactMap { Int($0) }
            guard !values.isEmpty, values.allSatisfy({ (1...64).contains($0) }) else { throw HarnessFailure("bad list '\(text)'") }
            return values
        }
        var explicitRepetitions: Int?
        var explicitSize: Int64?
        var explicitFiles: Int?
        while index < arguments.count {
            switch arguments[index] {
            case "--quick": options.quick = true
            case "--segments": options.explicitSegments = try list(try next("--segments"))
            case "--repetitions":
                guard let value = Int(try next("--repetitions")), value >= 1 else { throw HarnessFailure("bad --repetitions") }
                explicitRepetitions = value
            case "--size":
                guard let value = Int64(try next("--size")), value >= 1 else { throw HarnessFailure("bad --size") }
                explicitSize = value << 20
            case "--scenarios":
                let names = try next("--scenarios")
                let chosen = names == "all" ? ScenarioKind.allCases.map(\.rawValue) : names.split(separator: ",").map(String.init)
                options.scenarios = try chosen.map {
                    guard let kind = ScenarioKind(rawValue: String($0)) else { throw HarnessFailure("unknown scenario '\($0)'") }
                    return kind
                }
            case "--files":
                guard let value = Int(try next("--files")), (1...100_000).contains(value) else { throw HarnessFailure("bad --files") }
                explicitFiles = value
            case "--parallel":
                guard let value = Int(try next("--parallel")), (1...64).contains(value) else { throw HarnessFailure("bad --parallel") }
                options.manyParallel = value
            case "--file-size":
                guard let value = Int(try next("--file-size")), (1...(1 << 20)).contains(value) else { throw HarnessFailure("bad --file-size") }
                options.manyFileSize = value << 10
            case "--rtt":
                guard let value = Double(try next("--rtt")), value >= 0, value <= 10_000 else { throw HarnessFailure("bad --rtt") }
                options.rttMilliseconds = value
            case "--nginx": options.nginx = true
            case "--url": options.externalURL = try next("--url")
            case "--compare": options.compare = true
            case "--json": options.jsonPath = try next("--json")
            case "--phases": options.phases = true
            case "--lab": options.lab = true
            case "--profiles": options.labProfiles = try next("--profiles")
            case "--trace": options.labTrace = try next("--trace")
            case "--before": options.labBefore = try next("--before")
            case "--out": options.outputParent = try next("--out")
            case "--fastget": options.fastgetPath = try next("--fastget")
            case "--soak":
                guard let value = Int(try next("--soak")), value >= 1 else { throw HarnessFailure("bad --soak") }
                options.soakKills = value
            case "--startup":
                guard let value = Int(try next("--startup")), value >= 1 else { throw HarnessFailure("bad --startup") }
                options.startupRuns = value
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw HarnessFailure("unknown option '\(arguments[index])'")
            }
            index += 1
        }
        options.applyQuick()
        if let explicitSegments = options.explicitSegments { options.segments = explicitSegments }
        if let explicitFiles { options.manyFiles = explicitFiles }
        if let explicitRepetitions { options.repetitions = explicitRepetitions }
        if let explicitSize {
            options.rawSize = explicitSize
            options.labSizeMiB = explicitSize >> 20
        }
        if options.externalURL != nil { options.scenarios = [.raw] }
        return options
    }

    /// `--quick`'s smaller figures (options given explicitly override them afterwards).
    private mutating func applyQuick() {
        if quick {
            segments = [1, 4]
            repetitions = 1
            rawSize = 64 << 20
            cappedSeconds = 0.5
            unevenSeconds = 0.5
            autoCappedSeconds = 1
            mirrorsSeconds = 2
            manyFiles = 50
        }
    }

    /// A combination of options that cannot work, as one line; nil when there is none.
    var conflict: String? {
        if scenarios.contains(where: \.isMirrors) && (nginx || externalURL != nil) {
            return "the mirrors scenarios run against the embedded server only"
        }
        if !lab && (labProfiles != nil || labTrace != nil) { return "--profiles and --trace belong to --lab" }
        if !lab && labBefore != nil && !scenarios.allSatisfy(\.isMany) { return "--before belongs to --lab and the many scenarios" }
        if lab && (nginx || externalURL != nil || rttMilliseconds > 0) { return "--lab makes its own servers and links" }
        if rttMilliseconds > 0 && (nginx || externalURL != nil) {
            return "--rtt works with the embedded server only, not with \(nginx ? "--nginx" : "--url")"
        }
        return nil
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
