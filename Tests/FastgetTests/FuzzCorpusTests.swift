@testable import Fastget
import Foundation
import Testing

/// Replays every kept fuzzing input (seeds and any crash the fuzzer found, `Tests/Fuzz/corpus`)
/// through the same property checks the libFuzzer driver runs.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    @Test(arguments: FuzzTarget.allCases)
    func corpusHoldsTheProperties(target: FuzzTarget) throws {
        let directory = FuzzCorpusTests.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!names.isEmpty, "no seeds for \(target.rawValue)")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(target.run(bytes) == nil, "\(target.rawValue)/\(name)")
        }
    }
}
