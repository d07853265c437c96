import Fastget

/// `fastget.1` (in `scripts/`), made from the same table as `--help` and the completions; a
/// test fails when the file in the repository differs from this text.
enum ManPage {
    static var text: String {
        var lines = [
            ".TH FASTGET 1 \"\" \"fastget \(Fastget.version)\" \"User Commands\"",
            ".SH NAME",
            "fastget \\- download a file over parallel byte ranges, resumably",
            ".SH SYNOPSIS",
            ".B fastget",
            "[\\fIoptions\\fR] \\fIURL\\fR [\\fIMIRROR-URL\\fR...]",
            ".br",
            ".B fastget",
            "[\\fIoptions\\fR] \\fB\\-i\\fR \\fIFILE\\fR [\\fB\\-j\\fR \\fIK\\fR]",
            ".SH DESCRIPTION",
            "Downloads URL over parallel byte ranges into NAME (named by Content-Disposition or the URL),",
            "writing to NAME.part and renaming it only when every byte is in. NAME.fastget, the journal,",
            "records what is on disk: after Ctrl-C, a kill or a crash, the same command resumes.",
            "More URLs, or Link: rel=duplicate from the server, are mirrors of the same file.",
            ".SH OPTIONS",
        ]
        for option in CommandLineOption.all {
            let names = ((option.short.map { ["-\($0)"] } ?? []) + ["--" + option.long]).map { "\\fB\(escaped($0))\\fR" }
            lines.append(".TP")
            lines.append(names.joined(separator: ", ") + (option.value.isEmpty ? "" : " \\fI\(escaped(option.value))\\fR"))
            var text = option.help
            if let note = option.note { text += " (\(note))" }
            lines.append(escaped(text) + ".")
            if !option.aliases.isEmpty { lines.append("Also: " + option.aliases.map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ") + ".") }
        }
        lines += [".SH EXIT STATUS"]
        for (status, meaning) in HelpText.exitCodes {
            lines += [".TP", "\\fB\(status)\\fR", escaped(meaning) + "."]
        }
        lines += [
            ".SH FILES",
            ".TP", "\\fINAME\\fR.part", "the file while it downloads, preallocated.",
            ".TP", "\\fINAME\\fR.fastget", "the journal: which bytes of which version of which URL are on disk.",
            ".SH SEE ALSO", "curl(1), wget(1), aria2c(1)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text safe in roff: backslashes doubled, hyphens as `\-`, a leading dot or quote guarded.
    static func escaped(_ text: String) -> String {
        var result = text.replacingAll(["\\": "\\\\", "-": "\\-"])
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}
