// Bench: throughput by segment count against an embedded loopback server.
// The full harness (scenarios, nginx, anchors) lands with the Bench issue; until then this
// measures one raw scenario so the data path has a number to compare against.
import Fastget
import FastgetTestSupport
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let sizeMiB = arguments.first.flatMap(Int.init) ?? 256
let counts = [1, 4, 16]
let bytes = testBytes(count: sizeMiB << 20)
let server = try TestServer(file: TestFile(bytes))
let directory = try TemporaryDirectory("fastget-bench")
defer { directory.remove() }

print("raw loopback, \(sizeMiB) MiB, median of 3")
print("segments   MiB/s")
for count in counts {
    var speeds: [Double] = []
    for _ in 0..<3 {
        var options = DownloadOptions()
        options.segments = count
        options.output = directory.file("out.bin")
        options.overwrite = true
        let report = try Download(url: server.url(), options: options).run()
        speeds.append(Double(report.bytes) / report.seconds / 1_048_576)
    }
    let median = speeds.sorted()[1]
    print(String(format: "%8d %8.0f", count, median))
}
