import Foundation
import Testing

/// Every public declaration of the library carries a documentation comment.
@Suite struct PublicDocumentationTests {
    @Test func everyPublicDeclarationIsDocumented() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Fastget")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        var undocumented: [String] = []
        for file in files {
            let lines = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                let text = line.drop { $0 == " " }
                guard text.hasPrefix("public ") || text.hasPrefix("open ") else { continue }
                var previous = index - 1
                while previous >= 0, lines[previous].drop(while: { $0 == " " }).hasPrefix("@") { previous -= 1 }
                if previous < 0 || !lines[previous].drop(while: { $0 == " " }).hasPrefix("///") {
                    undocumented.append("\(file):\(index + 1): \(text)")
                }
            }
        }
        #expect(undocumented.isEmpty, "\(undocumented.joined(separator: "\n"))")
    }
}
