import Fastget
import Glibc

/// The configuration file, `$XDG_CONFIG_HOME/fastget/config` (else `~/.config/fastget/config`):
/// one long option per line, `segments = 16` or a bare `quiet`; `#` starts a comment; LF or CRLF
/// line ends (`ConfigurationText`). It is read before the command line, which wins;
/// `--no-config` skips it. An unknown key or a bad value is a usage error naming the file and
/// the line; so is a file that is not a regular file or is larger than 1 MiB (`InputFile`).
enum ConfigurationFile {
    /// Where it is, from the environment; nil when neither variable is set.
    static var path: String? {
        if let base = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), !base.isEmpty { return base + "/fastget/config" }
        return home.map { $0 + "/.config/fastget/config" }
    }

    /// `$HOME`, when set.
    static var home: String? { getenv("HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }

    /// Reads the `.netrc` at `invocation.netrcFile` into its options: a missing `~/.netrc` is
    /// skipped, a missing `--netrc-file` is an error; a file others can read gets a warning.
    static func loadNetrc(_ invocation: inout Invocation) throws(UsageError) {
        guard let path = invocation.netrcFile else { return }
        guard access(path, F_OK) == 0 || invocation.netrcRequired else { return }
        let file = try InputFile.contents(path)
        if file.mode & 0o077 != 0 {
            Console.write("fastget: warning: \(path) can be read by others; its passwords should be private (chmod 600)\n")
        }
        invocation.options.netrc = Netrc(file.text)
    }

    /// Applies the file's options to `invocation`; a missing file applies nothing.
    static func apply(_ path: String, to invocation: inout Invocation) throws(UsageError) {
        guard access(path, F_OK) == 0 else { return }
        for setting in ConfigurationText(try InputFile.contents(path).text).settings {
            let key = setting.name
            let place = "\(path):\(setting.line)"
            guard !key.isEmpty else { throw UsageError(message: "\(place): no option before '='") }
            guard let option = CommandLineOption.all.first(where: { $0.long == key || $0.aliases.contains("--" + key) }),
                !["help", "version", "completion", "no-config"].contains(option.long)
            else {
                throw UsageError(message: "\(place): unknown option '\(key)'")
            }
            var value = setting.value.flatMap { $0.isEmpty ? nil : $0 }
            if !option.takesValue {
                guard value == nil || value == "true" || value == "false" else {
                    throw UsageError(message: "\(place): \(key) is on or off: write '\(key)' or '\(key) = false'")
                }
                if value == "false" { continue }
                value = nil
            } else if value == nil {
                throw UsageError(message: "\(place): \(key) needs a value: '\(key) = VALUE'")
            }
            do {
                try option.apply(value, name: "--" + key, to: &invocation)
            } catch {
                throw UsageError(message: "\(place): \(error.message)")
            }
        }
    }
}
