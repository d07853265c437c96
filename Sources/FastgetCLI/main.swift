import Fastget
import Glibc

// TLS writes go through the socket: a peer that closes must produce EPIPE, not kill us.
signal(SIGPIPE, SIG_IGN)
SignalWatcher.blockSignals()

let invocation: Invocation
do {
    invocation = try ArgumentParser.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.error(error.message, hint: "see fastget --help")
    exit(FastgetError.Code.usage.exitCode)
}

if invocation.showHelp {
    Console.write(HelpText.text, to: 1)
    exit(ExitStatus.success)
}
if invocation.showVersion {
    Console.write("fastget \(Fastget.version)\n\(Fastget.openSSLVersion)\n", to: 1)
    exit(ExitStatus.success)
}

if invocation.inputFile != nil {
    exit(Batch.run(invocation))
}

do throws(FastgetError) {
    let download = try Download(url: invocation.url!, options: invocation.options)
    SignalWatcher.watch { download.pause() }
    let human = !invocation.quiet && !invocation.json
    let line: ProgressLine? = human && Console.stderrIsTerminal ? ProgressLine() : nil
    let log: ProgressLog? = human && !Console.stderrIsTerminal ? ProgressLog() : nil
    if invocation.json { download.onEvent(JSONEvents.write) }
    if invocation.verbose {
        download.onEvent { event in
            guard let text = Verbose.line(event) else { return }
            line?.clear()
            Console.write("fastget: \(text)\n")
        }
    }
    let report: DownloadReport
    do throws(FastgetError) {
        report = try download.run(progress: { progress in
            line?.update(progress)
            log?.update(progress)
        }, notice: { text in
            guard human else { return }
            line?.clear()
            Console.write("fastget: \(text)\n")
        })
    } catch {
        line?.clear()
        throw error
    }
    line?.clear()
    if invocation.json { JSONEvents.done(report, checksum: invocation.options.checksum) }
    if human {
        let speed = report.seconds > 0 ? Double(report.bytes) / report.seconds : 0
        let segments = report.segments == 1 ? "1 segment" : "\(report.segments) segments"
        let retries = report.retries > 0 ? ", \(report.retries) retries" : ""
        let steals = report.steals > 0 ? ", \(report.steals) steals" : ""
        let resumed = report.resumedBytes > 0 ? ", \(Format.bytes(Double(report.resumedBytes))) resumed" : ""
        // segments == 0: nothing was fetched; the notice already said the file is complete.
        if report.segments > 0 {
            let saved = invocation.options.outputDescriptor != nil ? "wrote standard output" : "saved \(report.path)"
            Console.write("fastget: \(saved) (\(Format.bytes(Double(report.bytes))) in \(Format.duration(report.seconds)), \(Format.bytes(speed))/s, \(segments)\(steals)\(retries)\(resumed))\n")
        }
    }
    if invocation.verbose {
        var tls = ""
        if report.fullHandshakes + report.resumedHandshakes > 0 {
            tls = " (TLS handshakes: \(report.fullHandshakes) full, \(report.resumedHandshakes) resumed)"
        }
        Console.write("fastget: \(report.connections) connections\(tls), \(report.steals) steals, \(report.hedges) hedges won, \(report.hedgesLost) lost, \(report.retries) retries\n")
    }
    exit(ExitStatus.success)
} catch {
    if invocation.json { JSONEvents.error(error) }
    Console.error(error.message, hint: error.hint)
    exit(error.exitCode)
}
