@testable import FastgetCLI
import FastgetTestSupport
import Foundation
import Testing

/// `ListReader`, the `-i` list read as it arrives: its lines, limits and stop.
@Suite struct ListReaderTests {
    /// A reader of a file holding `bytes`.
    func reader(_ bytes: [UInt8], _ directory: TemporaryDirectory) throws -> ListReader {
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file("list")))
        return try ListReader(directory.file("list"))
    }

    @Test func aStopHandsOutNoLineAlreadyRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = try reader(Array("http://h/a\nhttp://h/b\nhttp://h/c\n".utf8), directory)
        #expect(list.next() == .line(1, "http://h/a"))
        list.stop()
        #expect(list.next() == .stopped)
        #expect(list.next() == .stopped)
    }

    @Test func theCROfALineEndIsNotCountedInTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let longest = [UInt8](repeating: UInt8(ascii: "a"), count: ListReader.lineLimit)
        let list = try reader(longest + Array("\r\nb\r\n".utf8), directory)
        let first = list.next()
        #expect(first == .line(1, String(decoding: longest, as: UTF8.self)), "a line of \(ListReader.lineLimit) bytes and CRLF")
        #expect(list.next() == .line(2, "b"))
        #expect(list.next() == .end)
        #expect(try reader(longest + Array("a\r\n".utf8), directory).next() == .tooLong(1))
    }

    @Test func aByteOrderMarkIsNotPartOfTheFirstURL() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let list = try reader([0xEF, 0xBB, 0xBF] + Array("http://h/a\r\n\u{FEFF}http://h/b\r\n".utf8), directory)
        #expect(list.next() == .line(1, "http://h/a"))
        #expect(list.next() == .line(2, "\u{FEFF}http://h/b"), "only the file's first bytes are a mark")
    }
}
