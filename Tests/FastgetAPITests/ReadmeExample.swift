import Fastget
import Foundation
import Testing

/// The README's library example, compiled here so that a change to the public API that breaks
/// it breaks the build; the test checks that the README shows these very lines. It is never
/// run: it names a host that does not exist.
func readmeExample() throws {
    // README begin
    var options = DownloadOptions()
    options.segments = 8 // nil: the automatic count
    options.checksum = try Checksum("sha-256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
    let download = try Download(url: "https://host/path/big.iso", destination: "/data/big.iso", options: options)
    download.onEvent { event in // on the coordinator thread; or: for await event in download.events()
        if case .progress(let progress) = event { print(progress.completedBytes, progress.totalBytes ?? -1) }
    }
    let report = try download.run() // blocking; or download.start(), then try await download.result()
    print(report.bytes, report.seconds)
    // README end
}

@Suite struct ReadmeExampleTests {
    @Test func theREADMEShowsTheCompiledExample() throws {
        let here = URL(fileURLWithPath: #filePath)
        let source = try String(contentsOf: here, encoding: .utf8).components(separatedBy: "\n")
        let begin = try #require(source.firstIndex { $0.hasSuffix("// README begin") })
        let end = try #require(source.firstIndex { $0.hasSuffix("// README end") })
        let example = source[(begin + 1)..<end].map { String($0.dropFirst(4)) }.joined(separator: "\n")
        let readme = try String(
            contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\nimport Fastget\n\n" + example + "\n```"), "README's library example differs from ReadmeExample.swift")
    }
}
