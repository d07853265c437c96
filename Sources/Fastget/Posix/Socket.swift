internal import Glibc
import Synchronization

/// A connected TCP socket with blocking I/O bounded by timeouts.
package final class Socket: ByteStream, @unchecked Sendable {
    /// The file descriptor; owned, closed on deinit.
    package let descriptor: Int32

    /// Set by `shutdown`: a socket not yet connected ignores `shutdown(2)`, so the connecting
    /// phase also looks here, at least every `Socket.stopCheck` seconds.
    private let stopped = Atomic<Bool>(false)

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// How often a wait in the connecting phase looks whether the socket was shut down.
    static let stopCheck = 0.05

    deinit { close(descriptor) }

    /// Connects to `address`, giving up when the monotonic clock passes `deadline`.
    ///
    /// The socket stays non-blocking, so that what else setting up the connection takes (a proxy
    /// tunnel, a TLS handshake) can be bounded by the same deadline with `wait`; `makeBlocking`
    /// ends that phase. The corresponding C functions are `socket`, `connect` and `poll`.
    ///
    /// `created` learns of the socket before it connects, so that a stop can reach it from the
    /// moment it exists.
    package static func connect(
        to address: SocketAddress, deadline: Double,
        created: (Socket) -> Void = { _ in }
    ) throws(SystemError) -> Socket {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        let socket = Socket(descriptor: fd)
        created(socket)
        if socket.isStopped { throw SystemError("connect", errno: ECONNABORTED) }
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if result != 0 {
            guard errno == EINPROGRESS || errno == EINTR else { throw SystemError("connect") }
            guard try socket.wait(for: .writable, until: deadline) else { throw SystemError.timedOut("connect") }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure != 0 { throw SystemError("connect", errno: failure) }
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    /// What `wait` waits for.
    package enum Readiness {
        case readable, writable
    }

    /// Waits until the socket is `readiness` or the monotonic clock passes `deadline`; returns
    /// false on the deadline. For the non-blocking phase after `connect`.
    /// The corresponding C function is `poll`.
    package func wait(for readiness: Readiness, until deadline: Double) throws(SystemError) -> Bool {
        let events = Int16(readiness == .readable ? POLLIN : POLLOUT)
        while true {
            if isStopped { throw SystemError("poll", errno: ECONNABORTED) }
            let remaining = deadline - MonotonicClock.seconds()
            if remaining <= 0 { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32((min(remaining, Socket.stopCheck) * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw SystemError("poll")
            }
            // Errors and hang-ups count as ready: the next call reports them.
            if ready > 0 { return true }
        }
    }

    /// Reads at least one byte, or 0 at the end of the stream, in the non-blocking phase;
    /// throws `ETIMEDOUT` (as "connect": it is part of connecting) past `deadline`.
    package func read(into buffer: UnsafeMutableRawBufferPointer, deadline: Double) throws(SystemError) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw SystemError("recv") }
            guard try wait(for: .readable, until: deadline) else { throw SystemError.timedOut("connect") }
        }
    }

    /// Writes every byte in the non-blocking phase; throws `ETIMEDOUT` (as "connect") past
    /// `deadline`.
    package func write(_ bytes: UnsafeRawBufferPointer, deadline: Double) throws(SystemError) {
        try writeAll(bytes) { (remaining, _) throws(SystemError) in
            while true {
                let sent = send(descriptor, remaining.baseAddress!, remaining.count, Int32(MSG_NOSIGNAL))
                if sent >= 0 { return sent }
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw SystemError("send") }
                guard try wait(for: .writable, until: deadline) else { throw SystemError.timedOut("connect") }
            }
        }
    }

    /// Ends the non-blocking phase: from here on every `read` and `write` blocks, bounded by
    /// these timeouts (SO_RCVTIMEO/SO_SNDTIMEO), and fails with `EAGAIN` when one expires.
    package func makeBlocking(readTimeout: Double, writeTimeout: Double) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        setTimeouts(read: readTimeout, write: writeTimeout)
    }

    /// Bounds every later `read` and `write`: a call that waits longer fails with `EAGAIN`.
    private func setTimeouts(read: Double, write: Double) {
        func apply(_ option: Int32, _ seconds: Double) {
            // A zero timeval means "never time out": a positive timeout under a microsecond must
            // not round down to it. A huge one is capped before the conversion, which would trap.
            let bounded = seconds.isNaN ? MonotonicClock.forever : min(max(seconds, 1e-6), MonotonicClock.forever)
            let whole = bounded.rounded(.down)
            var value = timeval(tv_sec: Int(whole), tv_usec: min(999_999, Int(((bounded - whole) * 1e6).rounded(.up))))
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
        try writeAll(bytes) { (remaining, _) throws(SystemError) in
            try writeStep("send", remaining) { send(descriptor, $0, $1, Int32(MSG_NOSIGNAL)) }
        }
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    package func shutdown() {
        stopped.store(true, ordering: .releasing)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
