/// Which proxy a request goes through: an explicit one, else `http_proxy` / `https_proxy` from
/// the environment (as curl reads them: lower case first; `HTTPS_PROXY` too, never the upper-case
/// `HTTP_PROXY`, which CGI lets a client set), except for hosts that `no_proxy` names.
///
/// A malformed explicit proxy fails at once; one from the environment only fails the requests
/// that would use it (an odd `https_proxy` must not stop plain HTTP downloads).
package struct ProxySettings: Sendable {
    private let http: Result<HTTPURL?, ProxyError>
    private let https: Result<HTTPURL?, ProxyError>
    /// Host names or domains (a leading dot is optional), IP addresses, or "*" for all.
    package let bypass: [String]

    /// What tells two settings apart, for sharing connections made with them: each proxy with
    /// its credentials (a connection authenticated as one user must never serve another), and
    /// a setting that failed as such (never the same as "no proxy"). Kept in memory only.
    package var identity: String {
        let proxies = [http, https].map { result in
            switch result {
            case .success(let url?): "\(url.user ?? ""):\(url.password ?? "")@\(url.description)"
            case .success(nil): "-"
            case .failure(let error): "error:\(error)"
            }
        }
        return (proxies + bypass).joined(separator: "\u{0}")
    }

    /// No proxy for anything.
    package static let direct = ProxySettings(http: .success(nil), https: .success(nil), bypass: [])

    private init(http: Result<HTTPURL?, ProxyError>, https: Result<HTTPURL?, ProxyError>, bypass: [String]) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// - Throws: `.invalid` for a proxy URL that is malformed or not `http://`.
    package init(explicit: String?, noProxy: String?, useEnvironment: Bool) throws(ProxyError) {
        func environment(_ names: String...) -> String? {
            for name in names {
                if let value = Environment.value(name), !value.isEmpty { return value }
            }
            return nil
        }
        func parse(_ text: String?, from variable: String? = nil) -> Result<HTTPURL?, ProxyError> {
            guard let text else { return .success(nil) }
            let source = variable.map { " (from \($0))" } ?? ""
            let url: HTTPURL
            do { url = try HTTPURL(text) } catch {
                return .failure(ProxyError(.invalid, "invalid proxy '\(HTTPURL.redactingUserInfo(text))'\(source): \(error)"))
            }
            guard url.scheme == .http else {
                return .failure(ProxyError(.invalid, "proxy '\(url.withoutCredentials)'\(source) must be http:// (https is tunnelled through it)"))
            }
            return .success(url)
        }
        if let explicit {
            http = parse(explicit)
            _ = try http.get()
            https = http
        } else if useEnvironment {
            http = parse(environment("http_proxy"), from: "http_proxy")
            https = parse(environment("https_proxy", "HTTPS_PROXY"), from: "https_proxy")
        } else {
            http = .success(nil)
            https = .success(nil)
        }
        let list = noProxy ?? (useEnvironment ? environment("no_proxy", "NO_PROXY") : nil) ?? ""
        bypass = list.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty }
    }

    /// The proxy for `url`, nil to connect directly. Throws the error of a malformed proxy
    /// variable that this request would have used.
    package func proxy(for url: HTTPURL) throws(ProxyError) -> HTTPURL? {
        let host = url.host.lowercased()
        for entry in bypass {
            if entry == "*" { return nil }
            var name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            // host:port (one colon; IPv6 addresses have several) — the port is not compared.
            if let colon = name.lastIndex(of: ":"), name.firstIndex(of: ":") == colon {
                name = String(name[..<colon])
            }
            if host == name || host.hasSuffix("." + name) { return nil }
        }
        return try (url.scheme == .https ? https : http).get()
    }

    /// `Proxy-Authorization` for a proxy URL with user info.
    static func authorization(_ proxy: HTTPURL) -> String? {
        proxy.user.map { basicAuthorization(user: $0, password: proxy.password) }
    }
}
