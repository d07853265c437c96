import COpenSSL
import Glibc
import Synchronization

/// One accepted connection of the test server: plain or TLS, optionally paced to a byte rate.
final class ServerChannel {
    let fd: Int32
    private let ssl: OpaquePointer?
    /// Whether the TLS handshake resumed an earlier session.
    private(set) var resumed = false
    private var pacer: Pacer?
    /// Monotonic seconds of the last write that went through (0: none yet).
    private(set) var lastWrite = 0.0
    private let link: SharedPacer?

    /// Wraps `fd`; performs the TLS handshake when `tls` is given. Nil when the handshake fails.
    /// `link` paces this connection's bytes together with the other connections' on it.
    init?(fd: Int32, tls: TestIdentity?, rate: Double?, link: SharedPacer? = nil) {
        self.fd = fd
        self.link = link
        // As real servers do for keep-alive connections: without it, a head and a body written
        // separately wait for the client's delayed ACK (40 ms) on a reused connection.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let rate {
            // The kernel paces precisely where it can; the userspace bucket below is the fallback
            // (and is harmless where the kernel already paces at the same rate).
            var value = UInt64(rate)
            setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &value, socklen_t(MemoryLayout<UInt64>.size))
            var buffer: Int32 = 32 * 1024
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
            pacer = Pacer(rate: rate)
        }
        guard let tls else {
            ssl = nil
            return
        }
        guard let ssl = SSL_new(tls.serverContext) else { return nil }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else {
            SSL_free(ssl)
            return nil
        }
        self.ssl = ssl
        resumed = SSL_session_reused(ssl) == 1
    }

    deinit { if let ssl { SSL_free(ssl) } }

    /// Over TLS, tells the client that the data ends here (a close_notify alert); the TCP close
    /// follows when the connection is closed. Nothing for plain HTTP.
    func sendCloseNotify() {
        if let ssl { _ = SSL_shutdown(ssl) }
    }

    /// Reads some bytes; 0 or less means the peer is gone.
    func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        if let ssl {
            var count = 0
            return SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 ? count : 0
        }
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Waits until the next bytes may go, as this connection's rate and the link allow; returns
    /// how many of `wanted` to send now.
    private func admit(_ wanted: Int) -> Int {
        let chunk = pacer?.admit(min(wanted, link?.step ?? wanted)) ?? min(wanted, link?.step ?? wanted)
        link?.admit(chunk)
        return chunk
    }

    /// Writes every byte (paced); false when the peer is gone.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        writeCounting(bytes) == bytes.count
    }

    /// Writes (paced) until done or the peer is gone; returns how many bytes went out.
    func writeCounting(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < bytes.count {
            let chunk = admit(bytes.count - offset)
            guard writeRaw(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + chunk)])) else { return offset }
            offset += chunk
        }
        return offset
    }

    func write(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { write($0) }
    }

    /// Sends `count` bytes of the open file `file` from `offset`: `sendfile` on plain sockets,
    /// read-then-write under TLS. Returns the bytes sent.
    func send(file: Int32, offset: Int64, count: Int64, scratch: UnsafeMutableRawBufferPointer) -> Int64 {
        var sent: Int64 = 0
        while sent < count {
            let want = admit(Int(min(count - sent, 1 << 30)))
            if ssl == nil {
                var position = off_t(offset + sent)
                let result = sendfile(fd, file, &position, want)
                if result < 0 && errno == EINTR { continue }
                if result <= 0 { return sent }
                sent += Int64(result)
                lastWrite = monotonicSeconds()
            } else {
                let piece = min(want, scratch.count)
                let read = pread(file, scratch.baseAddress, piece, off_t(offset + sent))
                if read <= 0 { return sent }
                guard writeRaw(UnsafeRawBufferPointer(rebasing: scratch[0..<read])) else { return sent }
                sent += Int64(read)
            }
        }
        return sent
    }

    private func writeRaw(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            if let ssl {
                var written = 0
                guard SSL_write_ex(ssl, bytes.baseAddress! + offset, bytes.count - offset, &written) == 1 else { return false }
                offset += written
            } else {
                let written = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
        }
        lastWrite = monotonicSeconds()
        return true
    }
}

/// A userspace token bucket: bytes may leave only as fast as `rate` allows since the first send.
struct Pacer {
    let rate: Double
    private var start: Double?
    private var sent: Double = 0
    /// Bytes per step: about 10 ms of traffic, at least 4 KiB.
    private var step: Int { max(4096, min(64 * 1024, Int(rate / 100))) }

    init(rate: Double) { self.rate = rate }

    /// Waits until the next step may go; returns how many of `wanted` bytes to send now.
    mutating func admit(_ wanted: Int) -> Int {
        let now = monotonicSeconds()
        if start == nil { start = now }
        let chunk = min(wanted, step)
        let due = start! + (sent + Double(chunk)) / rate
        if due > now {
            var pause = timespec(tv_sec: Int(due - now), tv_nsec: Int((due - now - Double(Int(due - now))) * 1e9))
            nanosleep(&pause, nil)
        }
        sent += Double(chunk)
        return chunk
    }
}

/// A token bucket that connections share, as a link one connection fills: each chunk waits its
/// turn after the link's last one. A link left idle gives 50 ms of credit, no more: enough that
/// a sender the scheduler held back a few milliseconds catches up, too little for a burst.
final class SharedPacer: Sendable {
    let rate: Double
    /// When the link is free again (monotonic seconds).
    private let free = Mutex<Double>(0)

    init(rate: Double) { self.rate = rate }

    /// Bytes per chunk: about 10 ms of the link, at least 4 KiB.
    var step: Int { max(4096, min(64 * 1024, Int(rate / 100))) }

    /// Waits until the link can carry `chunk` more bytes.
    func admit(_ chunk: Int) {
        let now = monotonicSeconds()
        let due = free.withLock { free in
            free = max(free, now - 0.05) + Double(chunk) / rate
            return free
        }
        if due > now {
            var pause = timespec(tv_sec: Int(due - now), tv_nsec: Int((due - now - Double(Int(due - now))) * 1e9))
            nanosleep(&pause, nil)
        }
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
