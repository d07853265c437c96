internal import COpenSSL

/// Client TLS settings shared by every connection of a download: protocol floor, trust store,
/// verification mode. Wraps an `SSL_CTX`.
package final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    package let verifiesPeer: Bool

    /// Bundles tried when OpenSSL's compiled-in default is missing (minimal containers), in order:
    /// Debian/Ubuntu/Alpine, Fedora/RHEL, older SUSE/Alpine/distroless layouts.
    package static let fallbackBundles = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/cert.pem",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/ca-bundle.pem",
    ]

    /// - Parameters:
    ///   - caFile: a PEM bundle to trust instead of the system store.
    ///   - verifyPeer: false for `--insecure`: no certificate or host name check.
    package init(caFile: String?, verifyPeer: Bool) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError(kind: .configuration, reason: "cannot create a TLS context: \(TLSError.queueText())")
        }
        self.context = context
        self.verifiesPeer = verifyPeer
        _ = fastget_SSL_CTX_set_min_proto_version(context, fastget_TLS1_2_VERSION())
        // An EOF without close_notify reads as a clean end: heads, Content-Length and chunked
        // bodies carry their own end, and the fatal error raised otherwise would spoil the
        // session other connections resume. Before a body delimited by the close, the stream
        // turns the option off for its connection (TLSStream.requireAnnouncedEnd).
        SSL_CTX_set_options(context, fastget_SSL_OP_IGNORE_UNEXPECTED_EOF() | fastget_SSL_OP_NO_COMPRESSION() | fastget_SSL_OP_NO_RENEGOTIATION())
        _ = fastget_SSL_CTX_set_mode(context, fastget_SSL_MODE_AUTO_RETRY())
        _ = fastget_SSL_CTX_set_session_cache_client(context)
        // AES-128-GCM first: as strong as needed, and cheaper than AES-256 on both ends (servers
        // honour the client's order for TLS 1.3 unless configured otherwise).
        _ = SSL_CTX_set_ciphersuites(context, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256")
        // Read ahead into a large buffer: one recv brings several records instead of one.
        SSL_CTX_set_default_read_buffer_len(context, TLSContext.readBufferLength)
        SSL_CTX_set_verify(context, verifyPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        guard verifyPeer else { return }
        if let caFile {
            // Told plainly: OpenSSL's queue would say "No such file or directory; no such file;
            // system lib" for a file that is not there.
            do throws(SystemError) {
                try FileSystem.checkReadable(caFile)
            } catch {
                throw TLSError(kind: .configuration, reason: "cannot read CA file \(caFile): \(SystemError.describe(error.errno))")
            }
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                _ = TLSError.queueText()
                throw TLSError(kind: .configuration, reason: "CA file \(caFile) holds no certificate in PEM form")
            }
            return
        }
        try loadSystemTrust()
    }

    /// The last resumable session per `host:port`: later connections of the download resume it
    /// and skip the full handshake.
    private let sessions = Locked<[String: OpaquePointer]>([:])

    deinit {
        sessions.withLock { for session in $0.values { SSL_SESSION_free(session) } }
        SSL_CTX_free(context)
    }

    /// A session to resume for `key`, with a reference the caller must release.
    func session(for key: String) -> OpaquePointer? {
        sessions.withLock { sessions in
            guard let session = sessions[key] else { return nil }
            SSL_SESSION_up_ref(session)
            return session
        }
    }

    /// Keeps `session` (taking over the caller's reference) for later connections to `key`.
    func store(_ session: OpaquePointer, for key: String) {
        sessions.withLock { sessions in
            if let old = sessions[key] { SSL_SESSION_free(old) }
            sessions[key] = session
        }
    }

    /// Bytes OpenSSL reads from the socket at a time.
    static let readBufferLength = 128 * 1024

    /// `SSL_CERT_FILE`/`SSL_CERT_DIR` when set (OpenSSL reads them itself), otherwise OpenSSL's
    /// default paths plus the first well-known bundle that exists.
    private func loadSystemTrust() throws(TLSError) {
        _ = SSL_CTX_set_default_verify_paths(context)
        ERR_clear_error()
        if Environment.value("SSL_CERT_FILE") != nil || Environment.value("SSL_CERT_DIR") != nil { return }
        let defaultFile = String(cString: X509_get_default_cert_file())
        if FileSystem.exists(defaultFile) { return }
        for bundle in TLSContext.fallbackBundles where FileSystem.exists(bundle) {
            if SSL_CTX_load_verify_locations(context, bundle, nil) == 1 { return }
            ERR_clear_error()
        }
        let defaultDirectory = String(cString: X509_get_default_cert_dir())
        if FileSystem.isDirectory(defaultDirectory) { return }
        throw TLSError(kind: .noTrustStore, reason: "no CA certificates found")
    }

    /// The OpenSSL library version, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    package static var libraryVersion: String { String(cString: fastget_OpenSSL_version_text()) }
}
