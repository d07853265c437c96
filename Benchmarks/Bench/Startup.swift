import Foundation

/// `Bench --startup RUNS`: times `fastget --version` as a whole process (fork, exec, runtime
/// and OpenSSL start-up, exit) RUNS times through bench-launcher; prints the median, the 10th
/// and 90th percentiles and the peak RSS. A build's cold-start cost, with no server involved.
enum Startup {
    static func run(runs: Int, fastget: Tool) throws {
        var milliseconds: [Double] = []
        var rss: [Double] = []
        for _ in 0..<runs {
            let result = try measure(fastget.path, ["--version"], timeout: 30)
            guard result.status == 0 else { throw HarnessFailure("fastget --version exited \(result.status): \(result.log)") }
            milliseconds.append(result.seconds * 1000)
            rss.append(Double(result.peakRSS) / 1_048_576)
        }
        let sorted = milliseconds.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        say("fastget --version, \(runs) runs of \(fastget.path)")
        say(
            String(
                format: "median %.2f ms, p10 %.2f ms, p90 %.2f ms, peak RSS %.1f MiB",
                median(milliseconds), percentile(0.1), percentile(0.9), rss.max() ?? 0))
    }
}
