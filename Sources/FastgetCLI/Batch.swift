import Fastget
import Glibc

/// `-i FILE -j K`: every URL of a list through a `DownloadQueue`, K at a time. Prints a line
/// per finished download (and per failure); exits 0 when all completed, 130 when interrupted,
/// else with the exit code of the first download that failed (in list order).
enum Batch {
    static func run(_ invocation: Invocation) -> Int32 {
        let path = invocation.inputFile!
        let name = path == "-" ? "standard input" : path
        let reader: ListReader
        do throws(UsageError) {
            reader = try ListReader(path)
        } catch {
            Console.error("cannot read \(name): \(error.message)")
            return ExitStatus.of(.notFound)
        }
        let queue: DownloadQueue
        do throws(FastgetError) {
            queue = try DownloadQueue(
                directory: invocation.options.directory, maximumActive: invocation.jobs,
                options: invocation.options, restore: false, session: try invocation.session(), keepsEnded: false)
        } catch {
            Console.error(error.message, hint: error.commandLineHint)
            return ExitStatus.of(error)
        }
        // Armed before the list is read: a list from a pipe may take its time, and Ctrl-C or
        // --max-time must end that wait as they end the downloads.
        SignalWatcher.watch {
            reader.stop()
            queue.pauseAll()
        }
        SignalWatcher.arm(after: invocation.maximumTime)

        let display = !invocation.quiet && !invocation.json && !invocation.noProgress && Console.stderrIsTerminal ? BatchDisplay() : nil
        let list = ListedDownloads(window: ListedDownloads.window(jobs: invocation.jobs))
        queue.onEvent { download, event in
            report(event, of: download, invocation, display)
            if event.isFinal { list.ended(download, event) }
        }
        let stopped = add(from: reader, named: name, to: queue, invocation, display, list)
        display?.listEnded()
        if stopped { queue.pauseAll() } // a download added as the signal came
        if list.withLock({ $0.count == 0 && $0.firstFailure == nil }) && !stopped {
            Console.error("no URLs in \(name)")
            return ExitStatus.of(.usage)
        }
        queue.waitUntilIdle()
        display?.clear()

        let outcome = list.withLock { $0 }
        let paused = stopped || outcome.pending.values.contains { $0.download.state == .paused || $0.download.state == .queued }
        if paused {
            if SignalWatcher.timedOut.load(ordering: .sequentiallyConsistent) {
                Console.write("fastget: stopped after --max-time \(Format.duration(invocation.maximumTime)); run the same command again to resume\n")
                return ExitStatus.of(.temporary)
            }
            Console.write("fastget: interrupted; run the same command again to resume\n")
            return ExitStatus.of(.cancelled)
        }
        if !invocation.quiet && !invocation.json && outcome.count > 0 {
            Console.write("fastget: \(outcome.completed) of \(outcome.count) downloads complete\n")
        }
        return outcome.firstFailure ?? outcome.firstFailed?.code ?? failureCode(outcome.pending.values.sorted { $0.line < $1.line }.map(\.download))
    }

    /// Adds each URL line of the list to `queue` as it is read; true when a stop ended it.
    private static func add(
        from reader: ListReader, named name: String, to queue: DownloadQueue, _ invocation: Invocation, _ display: BatchDisplay?,
        _ list: ListedDownloads
    ) -> Bool {
        while true {
            // Read on only while few enough wait: a list of millions is never all in memory.
            list.waitForRoom { reader.isStopped }
            let text: String
            switch reader.next() {
            case .line(_, let line): text = line
            case .end: return false
            case .stopped: return true
            case .tooLong(let number):
                let message = "\(name) line \(number) is longer than \(ListReader.lineLimit >> 10) KiB; the rest of the list is not read"
                fail(FastgetError(.usage, message), invocation, list)
                return false
            case .failed(let reason):
                fail(FastgetError(.notFound, "cannot read \(name): \(reason)"), invocation, list)
                return false
            }
            // Several URLs on one line, separated by blanks, are mirrors of one file.
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let url = fields.first, !url.hasPrefix("#") else { continue }
            let line = list.withLock { state in
                state.count += 1
                return state.count
            }
            display?.listed(line)
            // A line read before a Ctrl-C but reached after it starts nothing.
            if reader.isStopped { return true }
            do throws(FastgetError) {
                let download = try queue.add(url, mirrors: Array(fields.dropFirst()))
                list.added(download, line: line)
            } catch {
                fail(error, invocation, list, url: url)
            }
        }
    }

    /// A line of the list (or the list) that failed: said on standard error, and with --json as an
    /// error event too; the first failure gives the exit code.
    private static func fail(_ error: FastgetError, _ invocation: Invocation, _ list: ListedDownloads, url: String? = nil) {
        Console.error(error.message, hint: error.commandLineHint)
        if invocation.json { JSONEvents.error(error, url: url) }
        list.withLock { $0.firstFailure = $0.firstFailure ?? ExitStatus.of(error) }
    }

    /// Lines for one download of the batch: its outcome, and with --json all of its events.
    private static func report(_ event: DownloadEvent, of download: Download, _ invocation: Invocation, _ display: BatchDisplay?) {
        // Made only for what shows it: a quiet list of small files has several events a file.
        var url: String { download.url.description }
        if invocation.json { JSONEvents.write(event, url: url) }
        switch event {
        case .progress(let progress):
            guard let display else { return }
            let name = download.destination.split(separator: "/").last.map(String.init) ?? url
            display.update(url, name: name, progress)
        case .completed(let report):
            if invocation.json { JSONEvents.done(report, checksum: report.verifiedDigest, url: url) }
            guard !invocation.quiet && !invocation.json else { return }
            // Nothing fetched: an earlier run of the list completed it.
            let text =
                report.workers == 0
                ? "fastget: \(report.path) is already complete\n" : Summary.line(report, saved: "saved \(report.path)", details: false)
            if let display { display.print(text, finishing: url) } else { Console.write(text) }
        case .failed(let error):
            if invocation.json { JSONEvents.error(error, url: url) }
            let text = "fastget: error: \(url): \(error.message)\n" + (error.commandLineHint.map { "hint: \($0)\n" } ?? "")
            if let display { display.print(text, finishing: url) } else { Console.write(text) }
        default:
            break
        }
    }

    /// The exit code of the first download that did not complete, 0 when all did.
    private static func failureCode(_ downloads: [Download]) -> Int32 {
        for download in downloads where download.state != .completed {
            return outcomeCode(download)
        }
        return ExitStatus.success
    }

    /// The exit code of a download that ended or stopped without completing.
    static func outcomeCode(_ download: Download) -> Int32 {
        do throws(FastgetError) {
            _ = try download.run() // an ended download gives its outcome again
            return ExitStatus.success
        } catch {
            return ExitStatus.of(error)
        }
    }
}
