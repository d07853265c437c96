/// Shell completions (`fastget --completion bash|zsh|fish`) and the man page, both made from
/// `CommandLineOption.all`, the table `--help` prints: an option exists in all of them or in
/// none.
enum Completions {
    static let shells = ["bash", "zsh", "fish"]

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: nil
        }
    }

    /// How a value is completed: files, directories, or nothing.
    private static func valueKind(_ option: CommandLineOption) -> String {
        switch option.value {
        case "FILE": "file"
        case "DIR": "directory"
        default: option.value.isEmpty ? "none" : "text"
        }
    }

    /// An alias spelled with its value (`--check-certificate=false`) is left out: zsh would
    /// read its `=` as "takes a value", and the shells complete names, not values.
    private static func names(_ option: CommandLineOption) -> [String] {
        (option.short.map { ["-\($0)"] } ?? []) + ["--" + option.long] + option.aliases.filter { !$0.contains("=") }
    }

    static var bash: String {
        let all = CommandLineOption.all
        let words = all.flatMap(names).joined(separator: " ")
        let files = all.filter { valueKind($0) == "file" }.flatMap(names).joined(separator: "|")
        let directories = all.filter { valueKind($0) == "directory" }.flatMap(names).joined(separator: "|")
        let values = all.filter { valueKind($0) == "text" }.flatMap(names).joined(separator: "|")
        return """
            # bash completion for fastget
            _fastget() {
                local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]}
                case $previous in
                    \(files)) COMPREPLY=($(compgen -f -- "$current")); return ;;
                    \(directories)) COMPREPLY=($(compgen -d -- "$current")); return ;;
                    \(values)) COMPREPLY=(); return ;;
                esac
                if [[ $current == -* ]]; then
                    COMPREPLY=($(compgen -W "\(words)" -- "$current"))
                fi
            }
            complete -o default -F _fastget fastget

            """
    }

    static var zsh: String {
        let specs = CommandLineOption.all.map { option -> String in
            let help = option.help.replacingAll(["'": "'\\''", "[": "(", "]": ")", ":": " "])
            let value =
                switch valueKind(option) {
                case "file": ":\(option.value):_files"
                case "directory": ":\(option.value):_files -/"
                case "text": ":\(option.value): "
                default: ""
                }
            let group = names(option)
            let exclusive = group.count > 1 ? "(\(group.joined(separator: " ")))" : ""
            let brace = group.count > 1 ? "{\(group.joined(separator: ","))}" : group[0]
            return "    '\(exclusive)'\(brace)'[\(help)]\(value)' \\"
        }
        return """
            #compdef fastget
            _arguments -s \\
            \(specs.joined(separator: "\n"))
                '*:URL:_urls'

            """
    }

    static var fish: String {
        let lines = CommandLineOption.all.flatMap { option -> [String] in
            var line = "complete -c fastget"
            if let short = option.short { line += " -s \(short)" }
            line += " -l \(option.long)"
            switch valueKind(option) {
            case "file": line += " -r -F"
            case "directory": line += " -r -a '(__fish_complete_directories)'"
            case "text": line += " -r -f"
            default: line += " -f"
            }
            line += " -d '\(option.help.replacingAll(["'": "\\'"]))'"
            let aliases = option.aliases.filter { $0.hasPrefix("--") && !$0.contains("=") }.map {
                "complete -c fastget -l \($0.dropFirst(2)) -d '\(option.long)'"
            }
            return [line] + aliases
        }
        return "# fish completion for fastget\n" + lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// Every character that is a key of `replacements` replaced by its value.
    func replacingAll(_ replacements: [Character: String]) -> String {
        var result = ""
        for character in self { result += replacements[character] ?? String(character) }
        return result
    }
}
