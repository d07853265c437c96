import COpenSSL
import Foundation

/// A self-signed certificate for `localhost` and 127.0.0.1 with its P-256 key, made in-process
/// with libcrypto (nothing that expires is committed, no `openssl` command needed), and a TLS
/// server context that presents it. Clients trust it through `certificatePath`.
public final class TestIdentity: @unchecked Sendable {
    /// The certificate as PEM, to pass as `--cacert`.
    public let certificatePath: String
    /// The private key as PEM, for servers that need files (nginx).
    public let keyPath: String
    let serverContext: OpaquePointer

    /// - Parameter tls12Only: serve TLS 1.2 at most (its session is resumable right after the
    ///   handshake, where TLS 1.3 tickets arrive whenever the server sends them).
    public init(directory: TemporaryDirectory, tls12Only: Bool = false) throws {
        guard let keyContext = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw HarnessError("EVP_PKEY_CTX_new_from_name failed") }
        defer { EVP_PKEY_CTX_free(keyContext) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(keyContext) == 1, EVP_PKEY_CTX_set_group_name(keyContext, "P-256") == 1,
            EVP_PKEY_generate(keyContext, &key) == 1, let key
        else {
            throw HarnessError("EC key generation failed")
        }
        defer { EVP_PKEY_free(key) }

        guard let certificate = X509_new() else { throw HarnessError("X509_new failed") }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(UInt32.random(in: 1...UInt32.max)))
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), 2 * 86400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", fastget_MBSTRING_ASC(), "localhost", -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        for (nid, value) in [(NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"), (NID_basic_constraints, "critical,CA:TRUE")] {
            guard let ext = X509V3_EXT_conf_nid(nil, nil, nid, value) else { throw HarnessError("extension \(value) failed") }
            X509_add_ext(certificate, ext, -1)
            X509_EXTENSION_free(ext)
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw HarnessError("X509_sign failed") }

        certificatePath = directory.file("identity.pem")
        guard let file = fopen(certificatePath, "w") else { throw HarnessError("cannot write \(certificatePath)") }
        PEM_write_X509(file, certificate)
        fclose(file)
        keyPath = directory.file("identity.key")
        guard let keyFile = fopen(keyPath, "w") else { throw HarnessError("cannot write \(keyPath)") }
        PEM_write_PrivateKey(keyFile, key, nil, nil, 0, nil, nil)
        fclose(keyFile)
        chmod(keyPath, 0o644)
        chmod(certificatePath, 0o644)

        guard let context = SSL_CTX_new(TLS_server_method()) else { throw HarnessError("SSL_CTX_new failed") }
        guard SSL_CTX_use_certificate(context, certificate) == 1, SSL_CTX_use_PrivateKey(context, key) == 1 else {
            SSL_CTX_free(context)
            throw HarnessError("cannot install the test certificate")
        }
        if tls12Only { _ = fastget_SSL_CTX_set_max_proto_version(context, fastget_TLS1_2_VERSION()) }
        serverContext = context
    }

    deinit { SSL_CTX_free(serverContext) }
}
