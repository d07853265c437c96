import Fastget

/// What to do about an error, in the command's own flags: the library's `hint` words a remedy
/// for code that embeds it (options and calls).
extension FastgetError.Remedy {
    var commandLine: String {
        switch self {
        case .replaceExisting(let continuable, let elsewhere):
            var ways = ["--overwrite to replace it"]
            if continuable { ways.append("-c to continue it") }
            if elsewhere { ways.append("-o FILE to save elsewhere") }
            return "use " + (ways.count == 1 ? ways[0] : ways.dropLast().joined(separator: ", ") + ", or " + ways[ways.count - 1])
        case .downloadAgain: return "use --overwrite to download it again"
        case .nameAFile: return "use -o FILE to name the output"
        case .nameTheSpecialFile: return "name it with -o to write the download to it"
        case .shorterName: return "use -o FILE with a shorter name"
        case .moveAwayOrSaveElsewhere: return "move it away, or use -o FILE to save elsewhere"
        case .waitOrSaveElsewhere: return "wait for it to finish, or use -o FILE to save elsewhere"
        case .moveAwayAndStartAgain: return "move it away and run the same command again to download the file anew"
        case .finalNameTaken(let path): return "move \(path) away and run the same command again, or add --overwrite to replace it"
        case .moveAwayOrReplace: return "move it away, or use --overwrite to replace it"
        case .replaceOrContinuePart: return "use --overwrite to replace it, or -c to continue it as the start of the file"
        case .moveStateFileAside(let path, let destination):
            return "move \(path) aside to continue \(destination) as the start of the file, or use --overwrite to download it again"
        case .anotherDestination: return "download it on its own with -o FILE"
        case .trustAnotherCA: return "use --cacert FILE to trust another CA, or -k to skip verification"
        case .provideTrustStore: return "set SSL_CERT_FILE, pass --cacert FILE, or -k to skip verification"
        case .checkAgain(let path): return "\(path) is untouched; run the same command again to check it"
        case .resume(let journal): return "run the same command again to resume (journal: \(journal))"
        case .downloadAgainAfterDigest(let part): return "the file is kept as \(part); run the same command to download it again"
        case .downloadAgainWithoutMirrors(let mirrors, let announced):
            let flag = announced ? "; --no-mirrors-from-headers leaves out the mirrors servers announce" : ""
            return "the same command downloads it again without \(mirrors.joined(separator: ", ")), which served part of it\(flag)"
        case .fileOrDigestWrong(let host):
            return "every byte came from \(host) (mirrors whose bytes failed before were left out): its file or the digest "
                + "is wrong, and the same command would fail the same way"
        case .followMoreRedirects: return "use --max-redirs N to follow more"
        case .checkProxy(let gateway):
            let origin = "the proxy is set by --proxy (-x) or the http_proxy/https_proxy variables; --noproxy '*' goes direct"
            return gateway.map { "the proxy got no usable answer from \($0); \(origin)" } ?? origin
        case .proxyCredentials(let proxy, let refused):
            return refused
                ? "it refused the user and password in the proxy URL; check them (--proxy http://USER:PASS@\(proxy))"
                : "give them in the proxy URL: --proxy http://USER:PASS@\(proxy)"
        case .giveCredentials: return "the server wants a user and password: -u USER[:PASS], or a machine line for the host in ~/.netrc with --netrc"
        case .authorizationFieldRefused(let origin):
            return "the server refused the Authorization field given with -H, which replaces the credentials of -u, the URL "
                + "or netrc on \(origin); check it, or drop it to send those"
        case .credentialsRefused(let user, let scheme):
            return "the server refused user '\(user)' (\(scheme)); check the user and password given (-u USER[:PASS], the URL or netrc)"
        }
    }
}

extension FastgetError {
    /// The hint the command prints: its remedy in flags, else the library's own words.
    var commandLineHint: String? { remedy?.commandLine ?? hint }
}
