internal import Glibc

/// A connected TCP socket with blocking I/O bounded by timeouts.
package final class Socket: ByteStream, @unchecked Sendable {
    /// The file descriptor; owned, closed on deinit.
    package let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Connects to `address`, giving up after `timeout` seconds.
    /// The corresponding C functions are `socket`, `connect` and `poll`.
    package static func connect(to address: SocketAddress, timeout: Double) throws(SystemError) -> Socket {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let socket = Socket(descriptor: fd)
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if result != 0 {
            guard errno == EINPROGRESS || errno == EINTR else { throw SystemError("connect") }
            try socket.waitUntilConnected(timeout: timeout)
        }
        // Back to blocking mode: from here on SO_RCVTIMEO/SO_SNDTIMEO bound every call.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    private func waitUntilConnected(timeout: Double) throws(SystemError) {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            let remaining = deadline - MonotonicClock.seconds()
            if remaining <= 0 { throw SystemError("connect", errno: ETIMEDOUT) }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw SystemError("poll")
            }
            if ready == 0 { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure != 0 { throw SystemError("connect", errno: failure) }
            return
        }
    }

    /// Bounds every later `read` and `write`: a call that waits longer fails with `EAGAIN`.
    package func setTimeouts(read: Double, write: Double) {
        func apply(_ option: Int32, _ seconds: Double) {
            var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
            setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
        apply(SO_RCVTIMEO, read)
        apply(SO_SNDTIMEO, write)
    }

    /// The corresponding C function is `recv`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingOnInterrupt("recv") { recv(descriptor, buffer.baseAddress, faultShortened(buffer.count, "recv"), 0) }
    }

    /// Writes everything; `MSG_NOSIGNAL` keeps a closed peer from raising SIGPIPE.
    /// The corresponding C function is `send`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = try retryingOnInterrupt("send") {
                send(descriptor, bytes.baseAddress! + offset, faultShortened(bytes.count - offset, "send"), Int32(MSG_NOSIGNAL))
            }
            offset += sent
        }
    }

    package func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
