import FastgetTestSupport
import Foundation
import Testing

/// The CLI and the embedder example use only the library's public interface: type-checked as
/// code from another package would be (`package` declarations are invisible to it).
@Suite struct PublicInterfaceTests {
    @Test func theCommandLineAndTheExampleNeedNothingButThePublicAPI() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let modules = try builtProduct("Modules")
        let swiftc = try #require(findExecutable("swiftc"))
        let cli = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources/FastgetCLI").path)
            .filter { $0.hasSuffix(".swift") }.map { root.appendingPathComponent("Sources/FastgetCLI/\($0)").path }
        for sources in [cli, [root.appendingPathComponent("Tests/FastgetAPITests/EmbedderExample.swift").path]] {
            let result = try runProcess(
                swiftc,
                [
                    "-typecheck", "-swift-version", "6", "-package-name", "embedder",
                    "-I", modules, "-I", root.appendingPathComponent("Sources/COpenSSL").path,
                    "-I", root.appendingPathComponent("Sources/CLinux").path,
                ] + sources,
                timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
        }
    }
}
