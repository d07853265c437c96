internal import Glibc
internal import CLinux

/// A kernel pipe used to move body bytes from a socket into the output file with `splice(2)`,
/// so they never pass through user space (plain HTTP only; TLS must decrypt in user space).
package final class SplicePipe: @unchecked Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    /// Bytes the pipe can hold; one `fill` moves at most this much.
    package let capacity: Int

    package init(capacity: Int) throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        // Smaller sizes when the kernel refuses (an unprivileged user past its pipe pages, or
        // past fs.pipe-max-size); then whatever the pipe really holds, which may be 8 KiB.
        var wanted = capacity
        while wanted > 64 * 1024 && fastget_set_pipe_size(writeEnd, Int32(wanted)) < 0 { wanted /= 4 }
        let size = fastget_pipe_size(writeEnd)
        self.capacity = size > 0 ? Int(size) : 4096
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Moves up to `limit` bytes from `socket` into the pipe; 0 at the end of the stream.
    /// Honours the socket's receive timeout (`EAGAIN`). The corresponding C function is `splice`.
    package func fill(from socket: Socket, limit: Int) throws(SystemError) -> Int {
        try retryingOnInterrupt("recv", site: "splice-in") {
            fastget_splice(socket.descriptor, nil, writeEnd, nil, faultShortened(min(limit, capacity), "splice-in"))
        }
    }

    /// Moves exactly `count` bytes from the pipe into `file` at `offset`.
    package func drain(into file: FileDescriptor, at offset: Int64, count: Int) throws(SystemError) {
        var position = off_t(offset)
        var left = count
        while left > 0 {
            let moved = try retryingOnInterrupt("splice") { fastget_splice(readEnd, nil, file.descriptor, &position, faultShortened(left, "splice")) }
            if moved == 0 { throw SystemError("splice", errno: EIO) }
            left -= moved
        }
    }
}
