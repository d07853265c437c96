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
            // The reference text, where there is one, says all the table's line says and more.
            let details = OptionDetails.byOption[option.long] ?? []
            lines.append(sentence(details.first ?? option.description))
            if !option.aliases.isEmpty { lines.append("Also: " + option.aliases.map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ") + ".") }
            for paragraph in details.dropFirst() { lines += [".IP", sentence(paragraph)] }
        }
        lines += [".SH CONFIGURATION FILE"]
        for paragraph in Manual.configuration { lines += [".PP", escaped(paragraph)] }
        lines += [".PP", ".nf", ".RS"] + Manual.configurationExample.map(escaped) + [".RE", ".fi"]
        lines += [".SH EXIT STATUS"]
        for (status, meaning) in HelpText.exitCodes {
            lines += [".TP", "\\fB\(status)\\fR", escaped(meaning) + "."]
        }
        lines += [".SH ENVIRONMENT"]
        for variable in Manual.environment {
            lines += [".TP", variable.names.split(separator: " ").map { "\\fB\(escaped(String($0)))\\fR" }.joined(separator: " ")]
            lines += [escaped(variable.meaning) + "."]
        }
        lines += [".SH FILES"]
        for file in Manual.files { lines += [".TP", "\\fI\(escaped(file.path))\\fR", escaped(file.meaning) + "."] }
        lines += [".SH EXAMPLES"]
        for example in Manual.examples {
            lines += [
                ".PP", escaped(example.does.prefix(1).uppercased() + example.does.dropFirst()) + ":", ".RS", ".B \(escaped(example.command))", ".RE",
            ]
        }
        lines += [".SH SEE ALSO", "curl(1), wget(1), aria2c(1)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` escaped, ending in a full stop.
    private static func sentence(_ text: String) -> String { escaped(text.hasSuffix(".") ? text : text + ".") }

    /// Text safe in roff: backslashes doubled, hyphens as `\-`, a leading dot or quote guarded.
    static func escaped(_ text: String) -> String {
        var result = text.replacingAll(["\\": "\\\\", "-": "\\-"])
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}
