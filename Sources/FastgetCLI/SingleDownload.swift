import Fastget

/// `fastget URL`: one download, with the progress display (or plain lines, or JSON), a summary
/// line, and its error's exit status when it fails.
enum SingleDownload {
    static func run(_ invocation: Invocation) -> Int32 {
        let started = Console.monotonicSeconds()
        var outcome: Result<DownloadReport, FastgetError>?
        let status = download(invocation, outcome: &outcome)
        if let format = invocation.writeOut, let outcome {
            let values =
                switch outcome {
                case .success(let report): WriteOut.values(report)
                case .failure(let error):
                    WriteOut.values(error, url: invocation.url!, seconds: Console.monotonicSeconds() - started)
                }
            Console.write(WriteOut.text(format, values), to: 1)
        }
        return status
    }

    /// The download itself; `outcome` is its report or the error it ended with.
    private static func download(_ invocation: Invocation, outcome: inout Result<DownloadReport, FastgetError>?) -> Int32 {
        do throws(FastgetError) {
            let download = try Download(url: invocation.url!, options: invocation.options, session: try invocation.session())
            let stop = StopNote()
            SignalWatcher.watch { download.pause() }
            SignalWatcher.arm(after: invocation.maximumTime)
            let human = !invocation.quiet && !invocation.json
            let display = human && !invocation.noProgress
            let line: ProgressLine? = display && Console.stderrIsTerminal ? ProgressLine(stream: download.writesAsStream) : nil
            let log: ProgressLog? = display && !Console.stderrIsTerminal ? ProgressLog() : nil
            if invocation.json { download.onEvent(JSONEvents.write) }
            download.onEvent(stop.observe)
            if invocation.verbose {
                download.onEvent { event in
                    guard let text = Verbose.line(event) else { return }
                    line?.clear()
                    Console.write("fastget: \(text)\n")
                }
            }
            let report: DownloadReport
            do throws(FastgetError) {
                report = try download.run(
                    progress: { progress in
                        line?.update(progress)
                        log?.update(progress)
                    },
                    notice: { text in
                        guard human else { return }
                        line?.clear()
                        Console.write("fastget: \(text)\n")
                    })
            } catch {
                line?.clear()
                outcome = .failure(error)
                guard error.code == .cancelled else { throw error }
                let timedOut = SignalWatcher.timedOut.load(ordering: .sequentiallyConsistent)
                if invocation.json {
                    // --max-time is a temporary failure (75), as without --json.
                    guard timedOut else { throw error }
                    let limit = Format.duration(invocation.maximumTime)
                    throw FastgetError(.temporary, "stopped after --max-time \(limit)", hint: error.commandLineHint)
                }
                Console.write(stop.line(error, toStream: download.writesAsStream, maximumTime: timedOut ? invocation.maximumTime : nil))
                return timedOut ? ExitStatus.of(.temporary) : ExitStatus.of(error)
            }
            line?.clear()
            outcome = .success(report)
            finish(report, invocation, human: human)
            return ExitStatus.success
        } catch {
            if outcome == nil { outcome = .failure(error) }
            if invocation.json { JSONEvents.error(error) }
            Console.error(error.message, hint: error.commandLineHint)
            return ExitStatus.of(error)
        }
    }

    /// The lines after a download completed: JSON's done, the summary, `-v`'s totals.
    private static func finish(_ report: DownloadReport, _ invocation: Invocation, human: Bool) {
        if invocation.json { JSONEvents.done(report, checksum: report.verifiedDigest) }
        // segments == 0: nothing was fetched; the notice already said the file is complete.
        if human && report.workers > 0 {
            let saved =
                !report.streamed ? "saved \(report.path)" : report.path == "-" ? "wrote standard output" : "wrote \(report.path)"
            Console.write(Summary.line(report, saved: saved, details: true))
        }
        if invocation.verbose { Console.write(Verbose.totals(report)) }
    }
}
