/// Other tools' options that fastget does not take under their names: what to type instead,
/// as the rest of an "unknown option" message. Options it takes are aliases in the option table
/// (`CommandLineOption.aliases`), not here.
enum ForeignOption {
    /// "did you mean -u USER:PASS?" for wget's `--http-user`; nil for a name no tool is known
    /// to use this way.
    static func answer(_ name: String) -> String? {
        answers.first { $0.names.contains(name) }.map { $0.answer }
    }

    /// aria2's booleans set to what fastget does anyway (`--check-certificate=true`): nothing to do.
    static func asksForDefault(_ argument: String) -> Bool {
        ["--check-certificate=true", "--allow-overwrite=false"].contains(argument)
    }

    private static let answers: [(names: [String], answer: String)] = [
        (["--http-user", "--http-password", "--http-passwd", "--user-password"], "did you mean -u USER:PASS?"),
        (["--progress", "--progress-bar", "-#", "--show-progress"], "did you mean -nv (no progress display), -q or --json?"),
        (["-Z", "--parallel"], "did you mean -i FILE -j K (K downloads at once)?"),
        (["--retry-delay", "--waitretry", "--retry-wait"], "fastget waits 0.25 s doubling to 8 s between retries, or the server's Retry-After"),
        (["--output-file", "-a", "--append-output", "--log-file"], "did you mean -v 2>FILE (the log is on standard error)?"),
        (["--recursive", "--mirror"], "fastget fetches the URLs given; list them in a file for -i FILE"),
        (["-r"], "wget's -r (recursive): list the URLs in a file for -i FILE; curl's -r (a range): fastget fetches whole files"),
        (["--range"], "fastget fetches whole files"),
        // curl's --proxy-user: its value is not echoed. (-U is -A unless its value is USER:PASS.)
        (["--proxy-user"], "did you mean --proxy http://USER:PASS@HOST:PORT?"),
        (["-X", "--request", "--method"], "fastget only downloads (GET)"),
        // aria2's booleans with another value than the aliases take (`--check-certificate=false`).
        (["--check-certificate"], "certificates are checked unless -k (--check-certificate=false) is given"),
        (["--allow-overwrite"], "an existing file is refused unless --overwrite (--allow-overwrite=true) is given"),
    ]
}
