extension FastgetError {
    /// What can be done about an error, as a value: `FastgetError.hint` says it in the
    /// library's terms (options and calls), and the `fastget` command in its own flags. More
    /// cases may come in later releases: a `switch` over it needs a `default`.
    public enum Remedy: Sendable, Equatable, CustomStringConvertible {
        /// A file is at the destination: set `replacesExistingFile` to replace it; when
        /// `continuable`, `continuePartial` continues it; when `elsewhere`, another destination
        /// avoids it.
        case replaceExisting(continuable: Bool, elsewhere: Bool)
        /// What is there cannot be continued (not this download's start, a server without
        /// ranges) or is not the file (a complete one that fails its digest):
        /// `replacesExistingFile` downloads it anew.
        case downloadAgain
        /// The destination is a directory: name a file in it.
        case nameAFile
        /// The derived destination is a device, FIFO or socket: name it as the destination
        /// to write the download to it.
        case nameTheSpecialFile
        /// The file name leaves no room for the sidecar files' suffixes: a shorter destination.
        case shorterName
        /// A file fastget did not make is in the way: move it, or save elsewhere.
        case moveAwayOrSaveElsewhere
        /// Another download holds the destination: wait for it, or save elsewhere.
        case waitOrSaveElsewhere
        /// The file was replaced under fastget: move it away and download again.
        case moveAwayAndStartAgain
        /// A file appeared at `path`, the final name, during the download (kept as `.part`):
        /// move it away and run again, or replace it.
        case finalNameTaken(path: String)
        /// A `.part` fastget did not make is at the destination, which also exists: move the
        /// `.part` away, or replace it.
        case moveAwayOrReplace
        /// A `.part` fastget did not make, with nothing at the destination: replace it, or
        /// continue it as the file's start.
        case replaceOrContinuePart
        /// Another tool's state file at `path` cannot be read: move it aside to continue
        /// `destination` as the file's start, or download it anew.
        case moveStateFileAside(path: String, destination: String)
        /// Two downloads of a queue would share a destination: give this one another.
        case anotherDestination
        /// The certificate did not verify: trust another CA (`caFile`) or, knowingly, turn
        /// verification off (`verifiesCertificates`).
        case trustAnotherCA
        /// There is no trust store at all: point `SSL_CERT_FILE` or `SSL_CERT_DIR` at one, give
        /// `caFile`, or, knowingly, turn verification off.
        case provideTrustStore
        /// Checking the complete file at `path` was stopped; it is untouched: run the download
        /// again to check it.
        case checkAgain(path: String)
        /// The download stopped and its journal is at `journal`: a new `Download` of the same
        /// URL and destination continues from it (`resume()` too, after `pause()`).
        case resume(journal: String)
        /// The file failed its digest and is kept at `part`, with no journal that claims any of
        /// it: running the download again fetches it anew.
        case downloadAgainAfterDigest(part: String)
        /// The file failed its digest after `mirrors` served some of it: running the download
        /// again leaves them out; `announced` when the server named some of them (then
        /// `mirrorsFromHeaders` leaves those out for good).
        case downloadAgainWithoutMirrors([String], announced: Bool)
        /// Not a remedy but the lack of one: the file failed its digest and every byte came
        /// from `host` (mirrors whose bytes failed before were left out), so its file or the
        /// digest is wrong, and running the download again would fail the same way.
        case fileOrDigestWrong(host: String)
        /// More redirects than `maximumRedirects` allows.
        case followMoreRedirects
        /// A proxy failed (as the gateway to `gatewayFor`, a host and port, when the origin
        /// gave it nothing usable): check where it was set.
        case checkProxy(gatewayFor: String?)
        /// The proxy `proxy` wants credentials: give them in its URL, or `refused`: the ones
        /// given there were refused.
        case proxyCredentials(proxy: String, refused: Bool)
        /// The server wants a user and password, and none was given.
        case giveCredentials
        /// The server refused the `Authorization` field of `headerFields`, which replaces the
        /// credentials for `origin`.
        case authorizationFieldRefused(origin: String)
        /// The server refused `user`'s credentials (`scheme`: HTTP Basic or HTTP Digest).
        case credentialsRefused(user: String, scheme: String)

        /// The remedy in the library's terms.
        public var description: String {
            switch self {
            case .replaceExisting(let continuable, let elsewhere):
                var ways = ["set replacesExistingFile to replace it"]
                if continuable { ways.append("continuePartial to continue it") }
                if elsewhere { ways.append("give another destination") }
                return Remedy.either(ways)
            case .downloadAgain: return "set replacesExistingFile to download it again"
            case .nameAFile: return "give a destination that names a file"
            case .nameTheSpecialFile: return "give it as the destination to write the download to it"
            case .shorterName: return "give a destination with a shorter name"
            case .moveAwayOrSaveElsewhere: return "move it away, or give another destination"
            case .waitOrSaveElsewhere: return "wait for it to finish, or give another destination"
            case .moveAwayAndStartAgain: return "move it away and run the download again to fetch the file anew"
            case .finalNameTaken(let path):
                return "move \(path) away and run the download again, or set replacesExistingFile to replace it"
            case .moveAwayOrReplace: return "move it away, or set replacesExistingFile to replace it"
            case .replaceOrContinuePart:
                return "set replacesExistingFile to replace it, or continuePartial to continue it as the start of the file"
            case .moveStateFileAside(let path, let destination):
                return "move \(path) aside to continue \(destination) as the start of the file, or set replacesExistingFile to download it again"
            case .anotherDestination: return "add it with another destination"
            case .trustAnotherCA: return "set caFile to trust another CA, or verifiesCertificates to false to skip verification"
            case .provideTrustStore:
                return "set SSL_CERT_FILE or SSL_CERT_DIR, or caFile, or verifiesCertificates to false to skip verification"
            case .checkAgain(let path): return "\(path) is untouched; run the download again to check it"
            case .resume(let journal): return "run the download again to resume (journal: \(journal))"
            case .downloadAgainAfterDigest(let part): return "the file is kept as \(part); run the download again to fetch it anew"
            case .downloadAgainWithoutMirrors(let mirrors, let announced):
                let headers = announced ? "; mirrorsFromHeaders set to false leaves out the mirrors servers announce" : ""
                return "running the download again fetches it without \(mirrors.joined(separator: ", ")), which served part of it\(headers)"
            case .fileOrDigestWrong(let host):
                return "every byte came from \(host) (mirrors whose bytes failed before were left out): its file or the "
                    + "digest is wrong, and running the download again would fail the same way"
            case .followMoreRedirects: return "raise maximumRedirects to follow more"
            case .checkProxy(let gateway):
                let origin = "the proxy is set by DownloadOptions.proxy or the http_proxy/https_proxy variables; noProxy \"*\" goes direct"
                return gateway.map { "the proxy got no usable answer from \($0); \(origin)" } ?? origin
            case .proxyCredentials(let proxy, let refused):
                return refused
                    ? "it refused the user and password in the proxy URL; check them (proxy: http://USER:PASS@\(proxy))"
                    : "give them in the proxy URL: http://USER:PASS@\(proxy)"
            case .giveCredentials:
                return "the server wants a user and password: set user and password, put them in the URL, or give a netrc"
            case .authorizationFieldRefused(let origin):
                return "the server refused the Authorization field in headerFields, which replaces the credentials "
                    + "of user, the URL or netrc on \(origin); check it, or drop it to send those"
            case .credentialsRefused(let user, let scheme):
                return "the server refused user '\(user)' (\(scheme)); check the user and password given (user and password, the URL or netrc)"
            }
        }

        /// "a", "a, or b", "a, b, or c".
        static func either(_ ways: [String]) -> String {
            guard let last = ways.last, ways.count > 1 else { return ways.first ?? "" }
            return ways.dropLast().joined(separator: ", ") + ", or " + last
        }
    }
}
