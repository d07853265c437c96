import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// Cookie files through the built binary: curl's habits (`-b F -c F` on a first run, `-b ''`,
/// `--cookie-jar -`), a save that would lose what the file held, the cookie gate, and
/// `-H 'Cookie:'`.
extension CommandLineCookieTests {
    @Test func aCookieGateThatRedirectsToItselfServesTheFile() throws {
        // The file comes once the cookie its first answer set is sent back to the same URL.
        let server = try TestServer { [data] request in
            guard request.header("Cookie") == "gate=open" else {
                return .status(302, fields: [("Location", "/file.bin"), ("Set-Cookie", "gate=open; Path=/")])
            }
            return .file(TestFile(data))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-q", "-n", "2", "-o", "out.bin", server.url("/file.bin")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(SHA256.hex(ofFile: directory.file("out.bin")) == SHA256.hex(data))
    }

    @Test func curlsFirstRunWithTheSameFileForDashBAndTheJarStartsEmpty() throws {
        let server = try loginServer()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try run(["-n", "1", "-b", "jar.txt", "--cookie-jar", "jar.txt", "-o", "out.bin", server.url("/login")], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("no cookie file jar.txt yet: starting with no cookies"), "\(result.stderr)")
        let saved = try String(contentsOfFile: directory.file("jar.txt"), encoding: .utf8)
        #expect(saved.contains("\tsid\ts3cret"), "\(saved)")
        let empty = try run(["-q", "-b", "", "-o", "again.bin", server.url("/login")], in: directory)
        #expect(empty.status == 0, "\(empty.stderr)")
    }

    @Test func curlsDashCFileIsRefusedWhenItNamesALocalFile() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "".write(toFile: directory.file("cj.txt"), atomically: true, encoding: .utf8)
        let result = try run(["-b", "cj.txt", "-c", "cj.txt", server.url()], in: directory)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("cj.txt is a local file, not a URL: -c is --continue here; curl's -c FILE is --save-cookies FILE"))
        #expect(server.requests.isEmpty)
    }

    @Test func refusesToSaveOverAFileWithLinesItCouldNotRead() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tkept\nsomething newer\tthis reader\tdoes not know\n"
        try text.write(toFile: directory.file("jar.txt"), atomically: true, encoding: .utf8)
        let result = try run(["-q", "-b", "jar.txt", "--save-cookies", "jar.txt", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("jar.txt holds lines or cookies that were not read: saving would delete them"), "\(result.stderr)")
        #expect(try String(contentsOfFile: directory.file("jar.txt"), encoding: .utf8) == text)
        #expect(server.requests.isEmpty)
    }

    @Test func refusesASaveDirectoryBeforeDownloadingAndWritesDashToStandardOutput() throws {
        var file = TestFile(data)
        file.extraFields = ["Set-Cookie: fresh=new"]
        let server = try TestServer(file: file)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("jar"), withIntermediateDirectories: false)
        let result = try run(["-q", "--save-cookies", "jar", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("fastget: error: cannot save the cookies to jar: it is a directory"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
        let out = try run(["-q", "--cookie-jar", "-", "-o", "out.bin", server.url()], in: directory)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tfresh\tnew\n"), "\(out.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("-")))
    }

    @Test func anEmptyCookieFieldRemovesTheJarsCookiesToo() throws {
        let server = try TestServer(file: TestFile(data))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tfromfile\n".write(toFile: directory.file("in.txt"), atomically: true, encoding: .utf8)
        let result = try run(["-q", "-n", "2", "--load-cookies", "in.txt", "-H", "Cookie:", "-o", "out.bin", server.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!server.requests.isEmpty && server.requests.allSatisfy { $0.header("Cookie") == nil }, "\(server.requests.map(\.raw))")
    }
}
