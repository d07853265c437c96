import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// What an embedder is told to do about an error: in the library's terms (options and
/// calls), never the command's flags, with the remedy as a value to act on.
@Suite struct RemedyTests {
    static let every: [FastgetError.Remedy] = [
        .replaceExisting(continuable: true, elsewhere: true), .replaceExisting(continuable: false, elsewhere: false),
        .downloadAgain, .provideTrustStore, .nameAFile, .nameTheSpecialFile, .shorterName, .moveAwayOrSaveElsewhere, .waitOrSaveElsewhere,
        .moveAwayAndStartAgain, .finalNameTaken(path: "/d/f"), .moveAwayOrReplace, .replaceOrContinuePart,
        .moveStateFileAside(path: "/d/f.aria2", destination: "/d/f"), .anotherDestination, .trustAnotherCA,
        .checkAgain(path: "/d/f"), .resume(journal: "/d/f.fastget"), .downloadAgainAfterDigest(part: "/d/f.part"),
        .downloadAgainWithoutMirrors(["http://m/f"], announced: true), .fileOrDigestWrong(host: "h"), .followMoreRedirects,
        .checkProxy(gatewayFor: "h"), .checkProxy(gatewayFor: nil), .proxyCredentials(proxy: "p:3128", refused: false),
        .proxyCredentials(proxy: "p:3128", refused: true), .giveCredentials, .authorizationFieldRefused(origin: "http://h"),
        .credentialsRefused(user: "ann", scheme: "HTTP Basic"),
    ]

    @Test(arguments: every)
    func everyRemedyIsWordedForCodeNotForTheCommandLine(remedy: FastgetError.Remedy) {
        let words = remedy.description
        #expect(!words.isEmpty)
        for flag in ["--", " -o", " -c", " -k", " -u", " -H", " -x", "same command", "netrc with"] {
            #expect(!words.contains(flag), "\(remedy): '\(words)' names '\(flag)'")
        }
    }

    /// A file in the way: the error says what to set, and carries it as a value.
    @Test func anExistingFileIsAnErrorWithItsRemedy() throws {
        let data = testBytes(count: 100_000, seed: 3)
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        FileManager.default.createFile(atPath: directory.file("f.bin"), contents: Data("mine".utf8))
        var options = testOptions(directory, segments: 1)
        options.keepsExistingFile = false
        #expect {
            try Download(url: server.url("/f.bin"), options: options).run()
        } throws: { error in
            guard let error = error as? FastgetError else { return false }
            return error.remedy == .replaceExisting(continuable: true, elsewhere: true)
                && error.hint == "set replacesExistingFile to replace it, continuePartial to continue it, or give another destination"
        }
        #expect(try String(contentsOfFile: directory.file("f.bin"), encoding: .utf8) == "mine")
    }
}
