import Fastget
import Glibc
import Synchronization

/// An `-i` list, read line by line as it arrives: from a file, a FIFO or standard input (a
/// producer may still be writing it). A line is at most `lineLimit` bytes, so that memory stays
/// bounded whatever the source (`/dev/zero` has no line end); CRLF line ends read as LF ones.
/// `stop()`, from another thread (the signal watcher), ends a wait for the next line at once:
/// the reader waits in `poll` on the list and on a pipe that `stop` writes to, never in `read`,
/// and hands out no line it had already read once `stop()` was called.
final class ListReader: @unchecked Sendable {
    /// 64 KiB: a URL, a signed one included, with its mirrors.
    static let lineLimit = 64 << 10

    /// What `next()` found.
    enum Next: Equatable {
        /// A line (its number from 1), without its line end.
        case line(Int, String)
        /// The end of the list.
        case end
        /// `stop()` was called.
        case stopped
        /// Line `number` is longer than `lineLimit`.
        case tooLong(Int)
        /// Reading failed.
        case failed(String)
    }

    private var descriptor: Int32
    private let stopped = Atomic<Bool>(false)
    private let wake: (read: Int32, write: Int32)
    private var pending: [UInt8] = []
    /// Where the next line starts in `pending`, and how far it was searched for a line end.
    private var start = 0
    private var scanned = 0
    private var ended = false
    private var number = 0

    /// Opens `path` ("-": standard input) without waiting for a FIFO's writer.
    init(_ path: String) throws(UsageError) {
        // A closed standard input would be reused by `pipe` below, and the reader would wait on
        // its own stop pipe for ever.
        if path == "-" && fcntl(0, F_GETFD) < 0 { throw UsageError(message: String(cString: strerror(errno))) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw UsageError(message: String(cString: strerror(errno))) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK) // a second stop must not block on a full pipe
        }
        wake = (ends[0], ends[1])
        descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            close(ends[0])
            close(ends[1])
            throw UsageError(message: reason)
        }
    }

    deinit {
        closeList()
        close(wake.read)
        close(wake.write)
    }

    /// Ends the current and every later wait: `next()` answers `.stopped`.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Whether `stop()` was called.
    var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// The next line, or why there is none.
    func next() -> Next {
        while true {
            if isStopped { return .stopped }
            if let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                // A CR before the LF is the line end's, not the line's.
                let end = newline > start && pending[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
                return end - start > ListReader.lineLimit ? .tooLong(number + 1) : take(newline, next: newline + 1)
            }
            scanned = pending.count
            // One more byte may be the CR of a CRLF line end.
            if pending.count - start > ListReader.lineLimit + 1 { return .tooLong(number + 1) }
            if ended { return start < pending.count ? take(pending.count, next: pending.count) : .end }
            // The lines before `start` are taken: drop them once per read, not once per line.
            pending.removeFirst(start)
            scanned -= start
            start = 0
            if let interruption = fill() { return interruption }
        }
    }

    /// The line from `start` to `end` (a CR before it dropped); the next one starts at `next`.
    private func take(_ end: Int, next: Int) -> Next {
        number += 1
        let last = end > start && pending[end - 1] == UInt8(ascii: "\r") ? end - 1 : end
        // A UTF-8 byte order mark (Notepad writes one) is not part of the first URL.
        let first = number == 1 && pending[start..<last].starts(with: [0xEF, 0xBB, 0xBF]) ? start + 3 : start
        let line = String(decoding: pending[first..<last], as: UTF8.self)
        start = next
        scanned = next
        return .line(number, line)
    }

    /// Waits for the list or a stop, then reads what is there; nil when it read (or saw the end).
    private func fill() -> Next? {
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&watched, 2, -1)
        if ready < 0 { return errno == EINTR ? nil : .failed(String(cString: strerror(errno))) }
        if watched[1].revents != 0 { return .stopped }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            return errno == EINTR || errno == EAGAIN ? nil : .failed(String(cString: strerror(errno)))
        }
        if count == 0 {
            ended = true
            // A later writer of a FIFO would have its lines taken by the kernel and never read.
            closeList()
        }
        pending += chunk[..<count]
        return nil
    }

    /// Closes the list once its end is seen (standard input stays: it is not the reader's).
    private func closeList() {
        if descriptor > 0 { close(descriptor) }
        descriptor = -1
    }
}
