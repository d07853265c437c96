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

    @Test(arguments: ["attachment", "inline; filename=\"\"", "attachment; filename=\"..\"", "attachment; filename=\"/\"",
                      "attachment; filename*=UTF-8''%2E%2E", "form-data; name=\"x\""])
    func givesNoNameWhenThereIsNone(value: String) {
        #expect(FileName.fromContentDisposition(value) == nil)
    }
}
