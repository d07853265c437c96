import Fastget

/// The command line, read with the options of `CommandLineOption.all`.
enum ArgumentParser {
    /// Parses `arguments` (without the program name). Accepts `-n 8`, `-n8`, `--segments 8`,
    /// `--segments=8`, and `--` before a URL that starts with "-".
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let options = CommandLineOption.all
        var invocation = Invocation()
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            let (name, attached) = split(argument)
            guard let option = options.first(where: { $0.matches(name) }) else {
                throw UsageError(message: "unknown option '\(argument)'")
            }
            var value = attached
            if value == nil && option.takesValue && index < arguments.count {
                value = arguments[index]
                index += 1
            }
            try option.apply(value, name: name, to: &invocation)
        }
        return try finish(invocation, positional: positional)
    }

    /// `--name=value` and `-nvalue` as the option's name and its attached value.
    private static func split(_ argument: String) -> (name: String, value: String?) {
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        if !argument.hasPrefix("--"), argument.count > 2 {
            // "-n8": a short option with its value attached.
            return (String(argument.prefix(2)), String(argument.dropFirst(2)))
        }
        return (argument, nil)
    }

    /// The rules between options, and the URL.
    private static func finish(_ invocation: Invocation, positional: [String]) throws(UsageError) -> Invocation {
        var invocation = invocation
        if invocation.showHelp || invocation.showVersion { return invocation }
        if invocation.json && invocation.options.outputDescriptor != nil {
            throw UsageError(message: "--json and -o - both want standard output")
        }
        if invocation.inputFile != nil {
            guard positional.isEmpty else { throw UsageError(message: "give URLs either with -i or on the command line, not both") }
            guard invocation.options.output == nil, invocation.options.outputDescriptor == nil else {
                throw UsageError(message: "-o names one file; with -i use -d DIR")
            }
            return invocation
        }
        guard let first = positional.first else { throw UsageError(message: "no URL given") }
        // More URLs are mirrors of the same file (aria2's convention); the first names it.
        invocation.url = first
        invocation.options.mirrors = Array(positional.dropFirst())
        return invocation
    }
}
