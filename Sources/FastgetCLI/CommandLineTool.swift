import Fastget
import Glibc

/// The `fastget` command: parses the arguments, runs one download or a list, and exits with
/// the documented status. The executable (`Sources/FastgetTool`) only calls `main()`, so that
/// the tests can import this module without linking the executable's static-link flags.
package enum CommandLineTool {
    package static func main() -> Never {
        DescriptorTable.reserve() // while this is the only thread
        // TLS writes go through the socket: a peer that closes must produce EPIPE, not kill us.
        signal(SIGPIPE, SIG_IGN)
        SignalWatcher.blockSignals()

        var invocation: Invocation
        do {
            invocation = try ArgumentParser.parse(Array(CommandLine.arguments.dropFirst()), configuration: ConfigurationFile.path)
            if !invocation.showHelp && !invocation.showVersion && invocation.completionShell == nil {
                try ConfigurationFile.loadNetrc(&invocation)
                let lossy = try CookieOptions.load(&invocation)
                if let status = CookieOptions.checkSavePath(invocation, lossy: lossy) { exit(status) }
                guard try Password.ask(&invocation) else {
                    Console.write("fastget: cancelled\n")
                    exit(ExitStatus.of(.cancelled))
                }
            }
        } catch {
            Console.error(error.message, hint: "see fastget --help")
            exit(ExitStatus.of(.usage))
        }

        if invocation.showHelp {
            Console.write(HelpText.text, to: 1)
            exit(ExitStatus.success)
        }
        if let shell = invocation.completionShell, let script = Completions.script(for: shell) {
            Console.write(script, to: 1)
            exit(ExitStatus.success)
        }
        if invocation.showVersion {
            Console.write("fastget \(Fastget.version)\n\(Fastget.openSSLVersion)\n", to: 1)
            exit(ExitStatus.success)
        }

        if invocation.inputFile != nil {
            exit(CookieOptions.save(invocation, status: Batch.run(invocation)))
        }
        if invocation.dryRun {
            exit(CookieOptions.save(invocation, status: DryRun.run(invocation)))
        }

        exit(CookieOptions.save(invocation, status: SingleDownload.run(invocation)))
    }
}
