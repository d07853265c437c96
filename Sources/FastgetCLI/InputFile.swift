import Fastget
import Glibc

/// The configuration file and a netrc: read whole, once, before anything else. Each must be a
/// regular file of at most `limit` bytes: a FIFO there would hold the start forever (its
/// `open` waits for a writer), and `/dev/zero` would fill memory. The file is opened without
/// blocking and checked with `fstat` before a byte is read.
enum InputFile {
    /// 1 MiB: a configuration file or a netrc is a few lines.
    static let limit = 1 << 20

    /// The text of the regular file at `path` and its permission bits; a usage error naming
    /// the file when it cannot be read, is not a regular file, or is larger than `limit`.
    static func contents(_ path: String) throws(UsageError) -> (text: String, mode: mode_t) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw UsageError(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw UsageError(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw UsageError(message: "\(path) is not a regular file") }
        let tooLarge = UsageError(message: "\(path) is larger than \(limit >> 20) MiB")
        guard info.st_size <= limit else { throw tooLarge }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw UsageError(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw tooLarge } // it grew since fstat
        return (String(decoding: bytes[..<count], as: UTF8.self), info.st_mode)
    }
}
