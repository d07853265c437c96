internal import Glibc

/// Writes to a descriptor the caller owns (standard output) without blocking for long: a pipe
/// whose reader is slow, or reads nothing, holds a plain `write(2)` until it reads, and the
/// stop signals, taken by `sigwait`, do not interrupt it. So each write first waits for room
/// with a bounded `poll`, and writes no more than that room is sure to take.
package struct StreamWriter {
    package let descriptor: Int32
    /// A regular file (or block device) takes any write at once; it needs no poll.
    private let takesAnything: Bool
    /// A pipe tells how much room it has (its size less what is unread), so a write there can
    /// be as large as that room instead of PIPE_BUF: 4 KiB writes cost `-o -` a third of its speed.
    private let isPipe: Bool

    package init(descriptor: Int32) {
        self.descriptor = descriptor
        var info = stat()
        let kind = fstat(descriptor, &info) == 0 ? FileSystem.kind(mode: info.st_mode) : nil
        takesAnything = kind == .regular || kind == .blockDevice
        isPipe = kind == .fifo
    }

    /// Writes some of `bytes`, waiting up to `seconds` for room; returns how many it wrote (0
    /// when no room came in time). The corresponding C functions are `poll` and `write`.
    package func write(_ bytes: UnsafeRawBufferPointer, waiting seconds: Double) throws(SystemError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        var count = bytes.count
        if !takesAnything {
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&entry, 1, Int32((min(max(0, seconds), 3600) * 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { throw SystemError("poll") }
            // An error or hang-up counts as ready: the write reports it (EPIPE).
            if ready <= 0 { return 0 }
            // POLLOUT on a pipe promises room for PIPE_BUF bytes; a larger write would wait
            // for the reader to take the rest.
            count = min(count, max(StreamWriter.atomicPipeWrite, isPipe ? pipeRoom() : 0))
        }
        return try writeStep("write", UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { Glibc.write(descriptor, $0, $1) }
    }

    /// PIPE_BUF on Linux.
    static let atomicPipeWrite = 4096

    /// The bytes the pipe takes now without blocking: its capacity (`F_GETPIPE_SZ`) less what
    /// its reader has not taken (`FIONREAD`); 0 when either is unknown. Another writer of the
    /// same pipe could take some room meanwhile; then the write waits for the reader, as any
    /// write to a shared pipe does. The corresponding C functions are `fcntl` and `ioctl`.
    private func pipeRoom() -> Int {
        let capacity = fcntl(descriptor, StreamWriter.getPipeSize)
        var unread: Int32 = 0
        guard capacity > 0, ioctl(descriptor, StreamWriter.bytesUnread, &unread) == 0 else { return 0 }
        return max(0, Int(capacity) - Int(unread))
    }

    /// `F_GETPIPE_SZ` and `FIONREAD` (Linux), which the Glibc module does not export.
    private static let getPipeSize: Int32 = 1032
    private static let bytesUnread = UInt(0x541B)
}
