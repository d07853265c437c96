@testable import Fastget
import Testing

/// Input files (netrc, configuration, lists) with CRLF line ends read as the LF ones.
@Suite struct InputTextTests {
    @Test func crlfLinesAreLFLines() {
        #expect(textLines("a\r\nb\n\r\nc\r").map(String.init) == ["a", "b", "", "c"])
        #expect(textLines("a\rb\n").map(String.init) == ["a\rb", ""], "a CR inside a line stays: the option refuses it")
    }

    @Test func aCRLFConfigurationReadsAsTheLFOne() {
        let text = "# defaults\nuser-agent = X\nquiet\nheader = A: b # c\n = 1\n"
        let crlf = ConfigurationText(text.replacingLineEnds())
        #expect(crlf == ConfigurationText(text))
        #expect(crlf.settings.map(\.name) == ["user-agent", "quiet", "header", ""])
        #expect(crlf.settings[0].value == "X" && crlf.settings[1].value == nil && crlf.settings[2].value == "A: b")
        #expect(ConfigurationText("user-agent = X\r").settings == [.init(line: 1, name: "user-agent", value: "X")])
    }

    @Test func aCRLFNetrcReadsAsTheLFOne() {
        let text = "machine h login alice password s3cret\nmacdef x\nstuff\n\ndefault login anon password \"a b\"\n"
        let netrc = Netrc(text.replacingLineEnds())
        #expect(netrc == Netrc(text))
        #expect(netrc.entry(for: "h") == Netrc.Entry(machine: "h", login: "alice", password: "s3cret"))
        #expect(netrc.entry(for: "other")?.password == "a b")
    }
}

extension String {
    /// With every LF preceded by a CR.
    fileprivate func replacingLineEnds() -> String {
        String(decoding: utf8.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] }, as: UTF8.self)
    }
}
