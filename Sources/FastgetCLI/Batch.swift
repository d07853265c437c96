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
                options: invocation.options, restore: false, session: try invocation.session())
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
        queue.onEvent { download, event in report(event, of: download, invocation, display) }
        var list = Listed()
        let stopped = add(from: reader, named: name, to: queue, invocation, display, &list)
        if stopped { queue.pauseAll() } // a download added as the signal came
        if list.count == 0 && !stopped && list.firstFailure == nil {
            Console.error("no URLs in \(name)")
            return ExitStatus.of(.usage)
        }
        queue.waitUntilIdle()
        display?.clear()

        var completed = 0
        var paused = stopped
        for download in list.added {
            switch download.state {
            case .completed: completed += 1
            case .paused, .queued: paused = true
            default: break
            }
        }
        if paused {
            if SignalWatcher.timedOut.load(ordering: .sequentiallyConsistent) {
                Console.write("fastget: stopped after --max-time \(Format.duration(invocation.maximumTime)); run the same command again to resume\n")
                return ExitStatus.of(.temporary)
            }
            Console.write("fastget: interrupted; run the same command again to resume\n")
            return ExitStatus.of(.cancelled)
        }
        if !invocation.quiet && !invocation.json && list.count > 0 {
            Console.write("fastget: \(completed) of \(list.count) downloads complete\n")
        }
        return list.firstFailure ?? failureCode(list.added)
    }

    /// What was taken from the list so far.
    private struct Listed {
        /// URL lines read (blank and comment lines not counted).
        var count = 0
        var added: [Download] = []
        /// `added`'s downloads, to tell a line the queue answered with one already added.
        var known: Set<ObjectIdentifier> = []
        var firstFailure: Int32?
    }

    /// Adds each URL line of the list to `queue` as it is read; true when a stop ended it.
    private static func add(
        from reader: ListReader, named name: String, to queue: DownloadQueue, _ invocation: Invocation, _ display: BatchDisplay?,
        _ list: inout Listed
    ) -> Bool {
        while true {
            let text: String
            switch reader.next() {
            case .line(_, let line): text = line
            case .end: return false
            case .stopped: return true
            case .tooLong(let number):
                let message = "\(name) line \(number) is longer than \(ListReader.lineLimit >> 10) KiB; the rest of the list is not read"
                fail(FastgetError(.usage, message), invocation, &list)
                return false
            case .failed(let reason):
                fail(FastgetError(.notFound, "cannot read \(name): \(reason)"), invocation, &list)
                return false
            }
            // Several URLs on one line, separated by blanks, are mirrors of one file.
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let url = fields.first, !url.hasPrefix("#") else { continue }
            list.count += 1
            display?.listed(list.count)
            // A line read before a Ctrl-C but reached after it starts nothing.
            if reader.isStopped { return true }
            do throws(FastgetError) {
                let download = try queue.add(url, mirrors: Array(fields.dropFirst()))
                guard list.known.insert(ObjectIdentifier(download)).inserted else { continue } // listed twice
                list.added.append(download)
            } catch {
                fail(error, invocation, &list, url: url)
            }
        }
    }

    /// A line of the list (or the list) that failed: said on standard error, and with --json as an
    /// error event too; the first failure gives the exit code.
    private static func fail(_ error: FastgetError, _ invocation: Invocation, _ list: inout Listed, url: String? = nil) {
        Console.error(error.message, hint: error.commandLineHint)
        if invocation.json { JSONEvents.error(error, url: url) }
        list.firstFailure = list.firstFailure ?? ExitStatus.of(error)
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
            do throws(FastgetError) {
                _ = try download.run() // an ended download gives its outcome again
            } catch {
                return ExitStatus.of(error)
            }
        }
        return ExitStatus.success
    }
}
