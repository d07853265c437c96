@testable import Fastget
import Testing

@Suite struct ContentDispositionTests {
    @Test(arguments: [
        ("attachment; filename=\"report.pdf\"", "report.pdf"),
        ("attachment; filename=plain.txt", "plain.txt"),
        ("ATTACHMENT; FILENAME = \"spaced.bin\" ", "spaced.bin"),
        ("inline; filename=\"a\\\"quoted\\\".txt\"", "a\"quoted\".txt"),
        ("attachment; filename*=UTF-8''na%C3%AFve%20file.txt", "naïve file.txt"),
        // filename* wins over filename, wherever it stands.
        ("attachment; filename*=UTF-8''%E2%82%AC-rates.csv; filename=\"EUR-rates.csv\"", "€-rates.csv"),
        ("attachment; filename=\"fallback.txt\"; filename*=iso-8859-1'en'%A3rates", "fallback.txt"),
        ("attachment; filename=\"semi;colon.txt\"", "semi;colon.txt"),
        // Hostile names become plain base names.
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment; filename=\"..\\\\..\\\\windows\\\\system.ini\"", "system.ini"),
        ("attachment; filename*=UTF-8''..%2F..%2F.ssh%2Fauthorized_keys", "authorized_keys"),
        ("attachment; filename=\"evil\u{01}\u{1B}[31mred.txt\"", "evil[31mred.txt"),
        ("attachment; filename*=UTF-8''a%00b.txt", "ab.txt"),
    ])
    func namesTheFileSafely(value: String, name: String) {
        #expect(FileName.fromContentDisposition(value) == name)
    }

    /// A server does not get to plant a hidden file (`.bashrc`, `.ssh`, `.htaccess`) in the
    /// user's directory: its leading dots go, whatever spaces hide them.
    @Test(arguments: [
        ("attachment; filename=\".bashrc\"", "bashrc"),
        ("attachment; filename=.profile", "profile"),
        ("attachment; filename=\"...hidden.tar.gz\"", "hidden.tar.gz"),
        ("attachment; filename=\" . .config\"", "config"),
        ("attachment; filename*=UTF-8''%2Essh", "ssh"),
        ("attachment; filename=\"dir/.htaccess\"", "htaccess"),
        ("attachment; filename=\"..\\\\.ini\"", "ini"),
        // Dots inside or at the end of a name are the name's own.
        ("attachment; filename=\"archive.tar.gz\"", "archive.tar.gz"),
        ("attachment; filename=\"v1.2..\"", "v1.2.."),
        // A filename* of nothing but dots leaves the plain filename to name the file.
        ("attachment; filename*=UTF-8''...; filename=\"plain.txt\"", "plain.txt"),
    ])
    func dropsTheLeadingDotsOfAServerChosenName(value: String, name: String) {
        #expect(FileName.fromContentDisposition(value) == name)
    }

    @Test(arguments: ["attachment; filename=\"...\"", "attachment; filename=\". . .\"", "attachment; filename*=UTF-8''.%2E."])
    func aNameOfDotsAloneIsNoName(value: String) {
        #expect(FileName.fromContentDisposition(value) == nil)
    }

    /// What the user typed is theirs: a URL naming a dot file saves under that name.
    @Test func keepsTheLeadingDotOfANameFromTheURL() throws {
        #expect(FileName.derived(from: try HTTPURL("http://example.com/home/.bashrc")) == ".bashrc")
        #expect(FileName.derived(from: try HTTPURL("http://example.com/%2Eprofile")) == ".profile")
    }

    /// Bidirectional controls and invisible format characters go from every name a server or
    /// URL gives: U+202E makes `evil\u{202E}gpj.exe` display as `evilexe.jpg`.
    @Test(arguments: [
        ("attachment; filename=\"evil\u{202E}gpj.exe\"", "evilgpj.exe"),
        ("attachment; filename*=UTF-8''evil%E2%80%AEgpj.exe", "evilgpj.exe"),
        ("attachment; filename*=UTF-8''%E2%80%8Bz%E2%80%8Cw%E2%80%8Dj%E2%80%8El%E2%80%8Fr.txt", "zwjlr.txt"),
        ("attachment; filename=\"\u{202A}a\u{202B}b\u{202C}c\u{202D}d.txt\"", "abcd.txt"),
        ("attachment; filename=\"\u{2066}i\u{2067}s\u{2068}o\u{2069}.txt\"", "iso.txt"),
        ("attachment; filename*=UTF-8''%EF%BB%BFbom.txt", "bom.txt"),
        // Every other format character (category Cf): tag characters spell invisible text
        // (`invoice<U+E0020><U+E0065>.pdf` displays as invoice.pdf), U+206A-206F, the soft
        // hyphen, the Mongolian vowel separator, interlinear annotation marks.
        ("attachment; filename*=UTF-8''invoice%F3%A0%80%A0%F3%A0%81%A5.pdf", "invoice.pdf"),
        ("attachment; filename=\"\u{206A}a\u{206B}b\u{206C}c\u{206D}d\u{206E}e\u{206F}.txt\"", "abcde.txt"),
        ("attachment; filename=\"so\u{00AD}ft\u{180E}\u{FFF9}x\u{FFFA}y\u{FFFB}.txt\"", "softxy.txt"),
        ("attachment; filename*=UTF-8''%F3%A0%80%81%F3%A0%81%BF", nil),
        // Nothing but invisible characters is no name; what they hid is not a leading dot either.
        ("attachment; filename*=UTF-8''%E2%80%AE%E2%80%8B", nil),
        ("attachment; filename=\"\u{200B}.bashrc\"", "bashrc"),
        // Visible characters beside them stay, right-to-left scripts included.
        ("attachment; filename=\"\u{05E9}\u{05DC}\u{05D5}\u{05DD}.txt\"", "\u{05E9}\u{05DC}\u{05D5}\u{05DD}.txt"),
    ])
    func dropsBidirectionalAndInvisibleFormatCharacters(value: String, name: String?) {
        #expect(FileName.fromContentDisposition(value) == name)
    }

    @Test func dropsThemFromANameFromTheURL() throws {
        #expect(FileName.derived(from: try HTTPURL("http://example.com/evil%E2%80%AEgpj.exe")) == "evilgpj.exe")
        #expect(FileName.derived(from: try HTTPURL("http://example.com/%E2%80%AE%EF%BB%BF")) == "index.html")
    }

    @Test(arguments: [
        "attachment", "inline; filename=\"\"", "attachment; filename=\"..\"", "attachment; filename=\"/\"",
        "attachment; filename*=UTF-8''%2E%2E", "form-data; name=\"x\"",
    ])
    func givesNoNameWhenThereIsNone(value: String) {
        #expect(FileName.fromContentDisposition(value) == nil)
    }
}
