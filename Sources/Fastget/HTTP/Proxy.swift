internal import Glibc

/// Which proxy a request goes through: an explicit one, else `http_proxy` / `https_proxy` from
/// the environment (as curl reads them: lower case first; `HTTPS_PROXY` too, never the upper-case
/// `HTTP_PROXY`, which CGI lets a client set), except for hosts that `no_proxy` names.
package struct ProxySettings: Sendable {
    package let http: HTTPURL?
    package let https: HTTPURL?
    /// Host names or domains (a leading dot is optional), IP addresses, or "*" for all.
    package let bypass: [String]

    /// No proxy for anything.
    package static let direct = ProxySettings(http: nil, https: nil, bypass: [])

    private init(http: HTTPURL?, https: HTTPURL?, bypass: [String]) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// - Throws: `.usage` for a proxy URL that is not `http://`.
    package init(explicit: String?, noProxy: String?, useEnvironment: Bool) throws(FastgetError) {
        func environment(_ names: String...) -> String? {
            for name in names {
                if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
            }
            return nil
        }
        func parse(_ text: String?) throws(FastgetError) -> HTTPURL? {
            guard let text else { return nil }
            let url: HTTPURL
            do { url = try HTTPURL(text) } catch { throw FastgetError(.usage, "invalid proxy '\(text)': \(error)") }
            guard url.scheme == .http else {
                throw FastgetError(.usage, "proxy '\(url.withoutCredentials)' must be http:// (https is tunnelled through it)")
            }
            return url
        }
        if let explicit {
            http = try parse(explicit)
            https = http
        } else if useEnvironment {
            http = try parse(environment("http_proxy"))
            https = try parse(environment("https_proxy", "HTTPS_PROXY"))
        } else {
            http = nil
            https = nil
        }
        let list = noProxy ?? (useEnvironment ? environment("no_proxy", "NO_PROXY") : nil) ?? ""
        bypass = list.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty }
    }

    /// The proxy for `url`, nil to connect directly.
    package func proxy(for url: HTTPURL) -> HTTPURL? {
        guard let proxy = url.scheme == .https ? https : http else { return nil }
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
        return proxy
    }

    /// `Proxy-Authorization` for a proxy URL with user info.
    static func authorization(_ proxy: HTTPURL) -> String? {
        guard let user = proxy.user else { return nil }
        return "Basic " + base64Encoded(Array(user.utf8) + [UInt8(ascii: ":")] + Array((proxy.password ?? "").utf8))
    }
}
