import Fastget

/// The command line, read with the options of `CommandLineOption.all`.
enum ArgumentParser {
    /// Parses `arguments` (without the program name). Accepts `-n 8`, `-n8`, `--segments 8`,
    /// `--segments=8`, and `--` before a URL that starts with "-".
    /// The configuration file at `configuration` is read first (unless `--no-config` is
    /// among the arguments); the command line wins.
    static func parse(_ arguments: [String], configuration: String? = nil) throws(UsageError) -> Invocation {
        let options = CommandLineOption.all
        var invocation = Invocation()
        if let configuration, !arguments.prefix(while: { $0 != "--" }).contains("--no-config") {
            try ConfigurationFile.apply(configuration, to: &invocation)
        }
        invocation.configurationHeaderCount = invocation.options.headerFields.count
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
            if ForeignOption.asksForDefault(argument) { continue }
            // Short flags may be combined (`-qk`, `-qn8`): each takes its turn, and the first
            // that takes a value takes the rest (or the next argument).
            var pending = [argument]
            while let current = pending.popLast() {
                let (name, attached) = split(current, options)
                let next = index < arguments.count ? arguments[index] : nil
                let later = arguments.dropFirst(index + 1)
                if let shared = try SharedLetter.decide(name, attached: attached, next: next, later: later, afterURL: !positional.isEmpty),
                    let option = options.first(where: { $0.long == shared.long })
                {
                    if shared.takesNext { index += 1 }
                    try option.apply(shared.value, name: name, to: &invocation)
                    continue
                }
                guard let option = options.first(where: { $0.matches(name) }) else {
                    // The argument up to the unknown letter (`-qz`): what follows may be a value.
                    let shown = current.hasPrefix("--") ? name : String(argument.dropLast(current.count - name.count))
                    throw UsageError(message: unknown(name, in: shown, options))
                }
                var value = attached
                if !option.takesValue, let rest = attached, !current.hasPrefix("--") {
                    (value, pending) = (nil, ["-" + rest]) // the next flag of a combination
                }
                if value == nil && option.takesValue && index < arguments.count {
                    value = arguments[index]
                    index += 1
                }
                try option.apply(value, name: name, to: &invocation)
            }
        }
        return try finish(invocation, positional: positional)
    }

    /// "unknown option '--retyr'; did you mean --retry?": the nearest name within two edits.
    /// `argument` is the option as typed without its value, which may be a password.
    private static func unknown(_ name: String, in argument: String, _ options: [CommandLineOption]) -> String {
        var text = "unknown option '\(name)'" + (name == argument ? "" : " (in '\(argument)')")
        if let answer = ForeignOption.answer(name) { return text + "; " + answer }
        guard name.hasPrefix("--") else { return text }
        let names = options.flatMap { ["--" + $0.long] + $0.aliases.filter { $0.hasPrefix("--") } }
        let scored = names.map { (name: $0, distance: editDistance(name, $0)) }.filter { $0.distance <= 2 }
        if let best = scored.min(by: { $0.distance < $1.distance }) { text += "; did you mean \(best.name)?" }
        return text
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// `--name=value` and `-nvalue` as the option's name and its attached value (an alias such
    /// as `-nc` is a name of its own).
    private static func split(_ argument: String, _ options: [CommandLineOption]) -> (name: String, value: String?) {
        // An alias spelled with its value (aria2's `--check-certificate=false`) is a name.
        if argument.hasPrefix("--"), !options.contains(where: { $0.matches(argument) }), let equals = argument.firstIndex(of: "=") {
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        if !argument.hasPrefix("--"), argument.count > 2, !options.contains(where: { $0.matches(argument) }) {
            // "-n8": a short option with its value attached.
            return (String(argument.prefix(2)), String(argument.dropFirst(2)))
        }
        return (argument, nil)
    }

    /// The rules between options, and the URL.
    private static func finish(_ invocation: Invocation, positional: [String]) throws(UsageError) -> Invocation {
        var invocation = invocation
        if invocation.showHelp || invocation.showVersion || invocation.completionShell != nil { return invocation }
        if invocation.json && invocation.options.outputDescriptor != nil {
            throw UsageError(message: "--json and -o - both want standard output")
        }
        let standardOutput = invocation.options.output.map { ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains($0) } ?? false
        if invocation.json, standardOutput, let output = invocation.options.output {
            throw UsageError(message: "--json and -o \(output) both want standard output")
        }
        if invocation.writeOut != nil {
            // -w's text would land inside the file, or among --json's lines.
            if invocation.options.outputDescriptor != nil || standardOutput {
                throw UsageError(message: "-w and -o \(invocation.options.output ?? "-") both want standard output")
            }
            if invocation.json { throw UsageError(message: "-w and --json both want standard output; --json has every figure") }
            if invocation.dryRun { throw UsageError(message: "-w reports a download; --dry-run (-I) fetches nothing") }
        }
        if let floor = invocation.options.speedLimit, let cap = invocation.options.rateLimit, floor >= cap {
            // Our own cap holds the download at or below the floor: every run would fail.
            throw UsageError(message: "--speed-limit (\(floor) bytes/s) must be below --limit-rate (\(cap) bytes/s), or the download can only fail")
        }
        if let output = invocation.options.output, invocation.directoryGiven {
            // curl's --output-dir with -o: the name goes in the directory. An absolute name
            // cannot (a device such as /dev/null is no file to place); the configuration
            // file's directory yields to any -o.
            if !output.hasPrefix("/") {
                invocation.options.output = invocation.options.directory + "/" + output
            } else if !output.hasPrefix("/dev/") && !output.hasPrefix("/proc/self/fd/") {
                throw UsageError(message: "-o \(output) is an absolute path: give it without -d, or a name inside -d \(invocation.options.directory)")
            }
        }
        if invocation.writeOut != nil && invocation.inputFile != nil {
            throw UsageError(message: "-w reports one download; with -i, --json reports each")
        }
        if invocation.dryRun && invocation.inputFile != nil {
            throw UsageError(message: "--dry-run takes one URL, not -i")
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
