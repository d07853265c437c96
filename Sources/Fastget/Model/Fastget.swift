/// The library's version, sent in `User-Agent` and printed by `fastget --version`.
public enum Fastget {
    /// fastget's version.
    public static let version = "0.1.0"

    /// The OpenSSL library version in use.
    public static var openSSLVersion: String { TLSContext.libraryVersion }
}
