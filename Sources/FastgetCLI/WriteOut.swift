import Fastget

/// `-w FORMAT` (curl's `--write-out`): text printed on standard output when the run ends, with
/// curl's most used variables taken from the report (or, after a failure, from the error).
/// Other variables are refused before anything is sent: `--json` has every figure.
enum WriteOut {
    /// The variables filled in, as curl names them.
    static let variables = ["http_code", "size_download", "time_total", "url_effective", "filename_effective", "speed_download"]

    /// Refuses a `%{name}` that is not among `variables`, or one left open.
    static func check(_ format: String, _ option: String) throws(UsageError) {
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            rest = rest[rest.index(after: percent)...]
            guard rest.first == "{" else { continue }
            guard let close = rest.firstIndex(of: "}") else {
                throw UsageError(message: "option \(option): '%{' without its '}'")
            }
            let name = String(rest[rest.index(after: rest.startIndex)..<close])
            guard variables.contains(name) else {
                throw UsageError(
                    message: "option \(option) knows %{\(variables.joined(separator: "}, %{"))}, not %{\(name)}; --json has every figure")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// The values after a complete download. `http_code` is 200: the file is whole, every range
    /// answered as asked (curl prints the last response's, which here is one of many).
    static func values(_ report: DownloadReport) -> [String: String] {
        let fetched = report.bytes - report.resumedBytes
        return [
            "http_code": "200", "size_download": String(fetched), "time_total": seconds(report.seconds),
            "url_effective": report.resource.url.description, "filename_effective": report.path,
            "speed_download": String(report.seconds > 0 ? Int64(Double(fetched) / report.seconds) : fetched),
        ]
    }

    /// The values after a failure: the status that caused it, or 000 as curl prints when no
    /// answer came; nothing saved; the URL as given, without its USER:PASS.
    static func values(_ error: FastgetError, url: String, seconds elapsed: Double) -> [String: String] {
        let status = error.httpStatus.map(String.init) ?? "000"
        return [
            "http_code": status, "size_download": "0", "time_total": seconds(elapsed), "url_effective": withoutCredentials(url),
            "filename_effective": "", "speed_download": "0",
        ]
    }

    /// `url` without the USER:PASS@ of its authority, parsed or not.
    static func withoutCredentials(_ url: String) -> String {
        if let parsed = try? HTTPURL(url) { return parsed.withoutCredentials.description }
        guard let afterScheme = SharedLetter.schemeEnd(url) else { return url }
        let authority = url[afterScheme...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<afterScheme] + url[url.index(after: at)...])
    }

    /// `format` with its variables replaced, `%%` as `%`, and curl's `\n`, `\r`, `\t`, `\\`.
    static func text(_ format: String, _ values: [String: String]) -> String {
        var output = ""
        var rest = Substring(format)
        while let character = rest.popFirst() {
            switch character {
            case "%" where rest.first == "%":
                output.append(rest.removeFirst())
            case "%" where rest.first == "{":
                guard let close = rest.firstIndex(of: "}") else { output.append(character); continue }
                output += values[String(rest[rest.index(after: rest.startIndex)..<close])] ?? ""
                rest = rest[rest.index(after: close)...]
            case "\\" where rest.first.map { "nrt\\".contains($0) } ?? false:
                let escaped: [Character: String] = ["n": "\n", "r": "\r", "t": "\t", "\\": "\\"]
                output += escaped[rest.removeFirst()]!
            default:
                output.append(character)
            }
        }
        return output
    }

    /// Seconds with six decimals, as curl prints `time_total`.
    private static func seconds(_ value: Double) -> String { Format.fixed(value, 6) }
}
