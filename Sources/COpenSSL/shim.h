#ifndef FASTGET_COPENSSL_SHIM_H
#define FASTGET_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/evp.h>

// Wrappers for OpenSSL macros that Swift cannot import.

static inline long fastget_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline int fastget_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int fastget_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

static inline long fastget_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long fastget_SSL_CTX_set_session_cache_client(SSL_CTX *ctx) {
    return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT);
}

static inline int fastget_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }

static inline uint64_t fastget_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline uint64_t fastget_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t fastget_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

// Whether an error code is OpenSSL's "unexpected eof while reading": the peer closed TCP
// without a close_notify (reported this way only when SSL_OP_IGNORE_UNEXPECTED_EOF is off).
static inline int fastget_ERR_is_unexpected_eof(unsigned long code) {
    return ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

static inline long fastget_SSL_MODE_AUTO_RETRY(void) { return SSL_MODE_AUTO_RETRY; }
static inline long fastget_SSL_MODE_RELEASE_BUFFERS(void) { return SSL_MODE_RELEASE_BUFFERS; }

static inline const char *fastget_OpenSSL_version_text(void) { return OpenSSL_version(OPENSSL_VERSION); }

// For test certificates made in-process (test support and Bench only).
static inline int fastget_MBSTRING_ASC(void) { return MBSTRING_ASC; }

#endif
