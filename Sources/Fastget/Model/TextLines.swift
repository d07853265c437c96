/// The lines of a text file fastget reads as input (a netrc, the configuration file, a list of
/// URLs): split at LF, with one CR before it dropped, so that a file written with CRLF line
/// ends reads exactly as the same file with LF ones. Split on bytes: in a Swift `String`,
/// "\r\n" is one `Character`, which is not "\n", so a CRLF file would read as a single line.
package func textLines(_ text: String) -> [Substring] {
    text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
        Substring(line.last == UInt8(ascii: "\r") ? line.dropLast() : line)
    }
}
