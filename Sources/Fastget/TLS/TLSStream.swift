internal import COpenSSL

/// TLS over a connected `Socket`: SNI, certificate and host name verification, blocking I/O
/// after a handshake bounded by the connect deadline.
package final class TLSStream: ByteStream, @unchecked Sendable {
    private let ssl: OpaquePointer
    private let socket: Socket

    private let context: TLSContext
    private let sessionKey: String
    private var sessionSaved = false

    /// Whether the handshake resumed an earlier session of this download (no full handshake).
    package var resumedSession: Bool { SSL_session_reused(ssl) == 1 }

    /// Performs the handshake. `host` is a DNS name or an IP literal (no brackets); IP literals are
    /// verified against the certificate's IP addresses and are not sent as SNI.
    ///
    /// `socket` must still be in its non-blocking phase (see `Socket.connect`): the handshake
    /// ends by `deadline` (monotonic seconds) or fails with `.timedOut`, however its bytes
    /// trickle in. The caller makes the socket blocking afterwards.
    package init(
        socket: Socket, context: TLSContext, host: String, hostIsIPAddress: Bool, port: Int,
        deadline: Double
    ) throws(TLSError) {
        self.context = context
        sessionKey = "\(host):\(port)"
        guard let ssl = SSL_new(context.context) else {
            throw TLSError(kind: .configuration, reason: "cannot create a TLS session: \(TLSError.queueText())")
        }
        self.ssl = ssl
        self.socket = socket
        ERR_clear_error()
        SSL_set_fd(ssl, socket.descriptor)
        SSL_set_read_ahead(ssl, 1)
        // Fail closed: a name OpenSSL does not take would leave the certificate checked against
        // no name at all (an empty one even clears the check).
        let refused = TLSError(kind: .handshake, reason: "cannot verify the certificate for \(host.debugDescription): OpenSSL refused the name")
        if hostIsIPAddress {
            if context.verifiesPeer {
                guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw refused }
            }
        } else {
            guard fastget_SSL_set_tlsext_host_name(ssl, host) == 1 else { throw refused }
            // With the length given, a name with a NUL byte is refused instead of cut short at it.
            if context.verifiesPeer {
                guard !host.isEmpty, X509_VERIFY_PARAM_set1_host(SSL_get0_param(ssl), host, host.utf8.count) == 1 else { throw refused }
            }
        }
        if let session = context.session(for: sessionKey) {
            SSL_set_session(ssl, session)
            SSL_SESSION_free(session)
        }
        try handshake(until: deadline)
    }

    /// `SSL_connect` on the non-blocking socket, waiting for it with `poll` against `deadline`:
    /// a blocking socket's SO_RCVTIMEO bounds each read, and a server trickling its handshake a
    /// byte at a time would never let one expire.
    private func handshake(until deadline: Double) throws(TLSError) {
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { return }
            let error = SSL_get_error(ssl, result)
            let savedErrno = Errno.current
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
                let ready: Bool
                do {
                    ready = try socket.wait(for: error == SSL_ERROR_WANT_READ ? .readable : .writable, until: deadline)
                } catch {
                    throw TLSError(kind: .handshake, reason: "TLS handshake failed: \(error.reason)")
                }
                guard ready else { throw TLSError(kind: .timedOut, reason: "TLS handshake timed out") }
                continue
            }
            let verify = SSL_get_verify_result(ssl)
            let queued = TLSError.queueText()
            if context.verifiesPeer && verify != Int(X509_V_OK) {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                throw TLSError(kind: .verification, reason: "certificate verification failed: \(reason)")
            }
            if error == SSL_ERROR_SYSCALL && queued.isEmpty {
                let why = savedErrno == 0 ? "connection closed by the server" : SystemError.describe(savedErrno)
                throw TLSError(kind: .handshake, reason: "TLS handshake failed: \(why)")
            }
            throw TLSError(kind: .handshake, reason: "TLS handshake failed: \(queued.isEmpty ? "error \(error)" : queued)")
        }
    }

    deinit {
        // Mark the session as shut down without writing a close_notify: OpenSSL otherwise
        // treats a connection freed mid-way as bad and makes its session non-resumable, which
        // would spoil the session the other connections of this download resume.
        SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
        SSL_free(ssl)
    }

    /// Whether an end without close_notify is a truncation (see `requireAnnouncedEnd`).
    private var announcedEndRequired = false
    /// The failure that ended reading, reported again by every later `read`: after a fatal
    /// error OpenSSL may answer the next read as if the stream had merely ended.
    private var readFailure: (any Error)?

    /// A close-delimited body follows: its end counts only with a close_notify. The context
    /// ignores an unexpected EOF (reads it as a clean end) for everything else, because heads,
    /// Content-Length and chunked bodies carry their own end, and because the fatal error
    /// OpenSSL raises otherwise spoils the session the download's other connections resume.
    package func requireAnnouncedEnd() {
        announcedEndRequired = true
        SSL_clear_options(ssl, fastget_SSL_OP_IGNORE_UNEXPECTED_EOF())
    }

    /// Reads at least one byte (blocking for the first record only), then whatever further
    /// records are already buffered, until `buffer` is full: one call per buffer, not per
    /// 16 KiB record.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let readFailure { throw readFailure }
        var total = 0
        while total < buffer.count {
            if total > 0 && SSL_has_pending(ssl) == 0 { break }
            ERR_clear_error()
            var count = 0
            if SSL_read_ex(ssl, buffer.baseAddress! + total, buffer.count - total, &count) == 1 {
                total += count
                saveSession()
                continue
            }
            let failure = failure(of: "read", SSL_get_error(ssl, 0))
            if total > 0 {
                readFailure = failure // reported by the next call
                return total
            }
            if let failure {
                readFailure = failure
                throw failure
            }
            return 0
        }
        return total
    }

    /// Once the session is resumable (with TLS 1.3 the tickets come after the handshake, so
    /// that may take a read or two), hands it to the context for the next connections.
    private func saveSession() {
        guard !sessionSaved, let session = SSL_get1_session(ssl) else { return }
        if SSL_SESSION_is_resumable(session) == 1 {
            sessionSaved = true
            context.store(session, for: sessionKey)
        } else {
            SSL_SESSION_free(session)
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(bytes) { (remaining, _) throws -> Int in
            ERR_clear_error()
            var count = 0
            if SSL_write_ex(ssl, remaining.baseAddress!, remaining.count, &count) == 1 { return count }
            throw failure(of: "write", SSL_get_error(ssl, 0)) ?? SystemError("send", errno: Errno.brokenPipe)
        }
    }

    package func shutdown() { socket.shutdown() }

    /// Maps an `SSL_get_error` result to an error; nil means a clean end of stream.
    private func failure(of operation: String, _ code: Int32) -> (any Error)? {
        let savedErrno = Errno.current
        let unannouncedEnd = TLSError(kind: .truncated, reason: "the connection closed without a TLS close_notify")
        switch code {
        case SSL_ERROR_ZERO_RETURN:
            return nil
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            // A blocking socket reports its SO_RCVTIMEO/SO_SNDTIMEO expiry this way.
            return SystemError(operation == "read" ? "recv" : "send", errno: Errno.resourceTemporarilyUnavailable)
        case SSL_ERROR_SSL where fastget_ERR_is_unexpected_eof(ERR_peek_error()) != 0:
            ERR_clear_error()
            return unannouncedEnd
        case SSL_ERROR_SYSCALL:
            let queued = TLSError.queueText()
            if !queued.isEmpty { return TLSError(kind: .transfer, reason: queued) }
            if savedErrno == 0 { return announcedEndRequired ? unannouncedEnd : nil }
            return SystemError(operation == "read" ? "recv" : "send", errno: savedErrno)
        default:
            let queued = TLSError.queueText()
            return TLSError(kind: .transfer, reason: "TLS \(operation) failed: \(queued.isEmpty ? "error \(code)" : queued)")
        }
    }
}
