@testable import Fastget
import Testing

/// `Link` fields (RFC 8288) and the mirrors they announce (RFC 6249 `rel=duplicate`).
@Suite struct AnnouncedMirrorTests {
    @Test func parsesTargetsAndParameters() {
        let links = LinkField.parse(
            #"<http://a/f>; rel=duplicate; pri=2; geo=de, <https://b/f> ; REL="duplicate describedby" ; title="x, y; z", <c>;rel=next"#)
        #expect(links.map(\.target) == ["http://a/f", "https://b/f", "c"])
        #expect(links[0].parameters == ["rel": "duplicate", "pri": "2", "geo": "de"])
        #expect(links[1].relations == ["duplicate", "describedby"])
        #expect(links[1].parameters["title"] == "x, y; z", "a comma or semicolon inside quotes is text")
        #expect(links[2].relations == ["next"])
    }

    @Test func skipsWhatDoesNotParseAndKeepsTheRest() {
        #expect(LinkField.parse("garbage, <http://a/f>; rel=duplicate").map(\.target) == ["http://a/f"])
        #expect(LinkField.parse(#"<http://a/f>; title="unterminated, <http://b/f>; rel=duplicate"#).isEmpty)
        #expect(LinkField.parse(#"<http://a/f>; title="q\"uote"; rel=duplicate"#).first?.parameters["title"] == #"q"uote"#)
        #expect(LinkField.parse("<>; rel=duplicate, <http://b/f>; rel=duplicate; rel=other").map(\.relations) == [["duplicate"]])
        #expect(LinkField.parse("").isEmpty)
    }

    @Test func mirrorsBestPriorityFirstWithoutDowngradesOrRepeats() throws {
        let base = try HTTPURL("https://origin.example/pub/f.iso")
        let mirrors = AnnouncedMirror.announced(
            in: [
                "<https://m1.example/f.iso>; rel=duplicate; pri=5; geo=DE; depth=2",
                "<http://plain.example/f.iso>; rel=duplicate; pri=1, <ftp://old.example/f.iso>; rel=duplicate",
                "</mirror/f.iso>; rel=duplicate, <https://user:pw@m2.example/f.iso>; rel=duplicate; pri=1",
                "<https://m1.example/f.iso>; rel=duplicate; pri=9, <https://origin.example/pub/f.iso>; rel=duplicate",
                "<https://meta.example/f.meta4>; rel=describedby; type=\"application/metalink4+xml\"",
                "<https://m3.example/f.iso>; rel=duplicate; pri=0; geo=deu; depth=-1",
            ],
            base: base)
        #expect(
            mirrors.map(\.url.description) == [
                "https://m2.example/f.iso", "https://m1.example/f.iso", "https://origin.example/mirror/f.iso",
                "https://m3.example/f.iso",
            ])
        #expect(mirrors[1] == AnnouncedMirror(url: try HTTPURL("https://m1.example/f.iso"), priority: 5, geo: "de", depth: 2, publicOnly: true))
        #expect(mirrors[0].url.user == nil && mirrors[0].url.password == nil, "a header does not choose credentials")
        #expect(mirrors[3].priority == nil && mirrors[3].geo == nil && mirrors[3].depth == nil, "out-of-range values are dropped")
        let plainBase = try HTTPURL("http://origin.example/f")
        #expect(AnnouncedMirror.announced(in: ["<http://m/f>; rel=duplicate"], base: plainBase).count == 1, "http from http is fine")
    }

    @Test func takesAtMostTheLimit() throws {
        let many = (0..<100).map { "<http://m\($0).example/f>; rel=duplicate" }.joined(separator: ", ")
        let mirrors = AnnouncedMirror.announced(in: [many], base: try HTTPURL("http://o/f"))
        #expect(mirrors.count == AnnouncedMirror.limit)
        #expect(mirrors.first?.url.host == "m0.example")
    }

    @Test func aFieldWithoutClosingBracketsParsesInLinearTime() {
        // 64 KiB of `<,`: each `<` used to search the rest of the field for `>` (26 s at -O).
        #expect(LinkField.parse(String(repeating: "<,", count: 32_768)).isEmpty)
    }

    @Test func anAnchorNamingAnotherResourceIsNotAMirrorOfThisOne() throws {
        let base = try HTTPURL("https://origin.example/pub/f.iso")
        let mirrors = AnnouncedMirror.announced(
            in: [
                #"<https://m1.example/other.iso>; rel=duplicate; anchor="/pub/other.iso""#,
                #"<https://m2.example/f.iso>; rel=duplicate; anchor="/pub/f.iso""#,
            ],
            base: base)
        #expect(mirrors.map(\.url.host) == ["m2.example"])
    }

    @Test func aPublicServerCannotPointAtInternalAddresses() throws {
        let inside = [
            "http://127.0.0.1:8080/f", "http://10.1.2.3/f", "http://172.20.0.1/f", "http://192.168.1.1/f",
            "http://169.254.169.254/latest/meta-data", "http://100.64.0.1/f", "http://0.0.0.0/f", "http://localhost/f",
            "http://[::1]/f", "http://[fe80::1]/f", "http://[fd00::1]/f", "http://[::ffff:127.0.0.1]/f",
            // Every spelling the resolver reads as loopback (inet_aton's forms, IPv6's).
            "http://127.1/f", "http://2130706433/f", "http://0x7f000001/f", "http://0177.0.0.1/f", "http://127.0.1/f",
            "http://0/f", "http://0x7F.0.0.1/f", "http://[0:0:0:0:0:0:0:1]/f", "http://[0::1]/f", "http://[::127.0.0.1]/f",
            "http://[::FFFF:7F00:1]/f", "http://[64:ff9b::10.0.0.1]/f", "http://[2002:a9fe:a9fe::]/f", "http://[ff02::1]/f",
            "http://255.255.255.255/f", "http://224.0.0.1/f", "http://localhost./f",
        ]
        let fields = inside.map { "<\($0)>; rel=duplicate" } + ["<http://public.example/f>; rel=duplicate"]
        let mirrors = AnnouncedMirror.announced(in: fields, base: try HTTPURL("http://origin.example/f"))
        #expect(mirrors.map(\.url.host) == ["public.example"])
        #expect(mirrors.allSatisfy { $0.publicOnly }, "a name may still resolve inside: checked when connecting")
        // A server that is itself internal may name its neighbours.
        let local = AnnouncedMirror.announced(in: fields, base: try HTTPURL("http://127.0.0.1:9000/f"))
        #expect(local.count == inside.count + 1)
        #expect(!local.contains { $0.publicOnly }, "an inside server may name inside mirrors")
        #expect(!AnnouncedMirror.isInternal("172.32.0.1") && !AnnouncedMirror.isInternal("8.8.8.8") && !AnnouncedMirror.isInternal("10.example"))
    }
}
