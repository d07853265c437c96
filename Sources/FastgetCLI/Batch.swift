import Fastget
import Glibc

/// `-i FILE -j K`: every URL of a list through a `DownloadQueue`, K at a time. Prints a line
/// per finished download (and per failure); exits 0 when all completed, 130 when interrupted,
/// else with the exit code of the first download that failed (in list order).
enum Batch {
    static func run(_ invocation: Invocation) -> Int32 {
        let path = invocation.inputFile!
        guard let text = readAll(path) else {
            Console.error("cannot read \(path == "-" ? "standard input" : path): \(String(cString: strerror(errno)))")
            return FastgetError.Code.notFound.exitCode
        }
        let urls = text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingSpaces() }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !urls.isEmpty else {
            Console.error("no URLs in \(path == "-" ? "standard input" : path)")
            return FastgetError.Code.usage.exitCode
        }
        let queue: DownloadQueue
        do throws(FastgetError) {
            queue = try DownloadQueue(
                directory: invocation.options.directory, maximumActive: invocation.jobs,
                options: invocation.options, restore: false, session: try invocation.session())
        } catch {
            Console.error(error.message, hint: error.hint)
            return error.exitCode
        }
        SignalWatcher.watch { queue.pauseAll() }
        SignalWatcher.arm(after: invocation.maximumTime)

        var firstFailure: Int32?
        var added: [Download] = []
        let display = !invocation.quiet && !invocation.json && Console.stderrIsTerminal ? BatchDisplay(count: urls.count) : nil
        queue.onEvent { download, event in report(event, of: download, invocation, display) }
        for line in urls {
            // Several URLs on one line, separated by blanks, are mirrors of one file.
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let url = fields[0]
            do throws(FastgetError) {
                let download = try queue.add(url, mirrors: Array(fields.dropFirst()))
                guard !added.contains(where: { $0 === download }) else { continue } // listed twice
                added.append(download)
            } catch {
                Console.error(error.message, hint: error.hint)
                if invocation.json { JSONEvents.error(error, url: url) }
                firstFailure = firstFailure ?? error.exitCode
            }
        }
        queue.waitUntilIdle()
        display?.clear()

        var completed = 0
        var paused = false
        for download in added {
            switch download.state {
            case .completed: completed += 1
            case .paused, .queued: paused = true
            default: break
            }
        }
        if paused {
            if SignalWatcher.timedOut.load(ordering: .sequentiallyConsistent) {
                Console.write("fastget: stopped after --max-time \(Format.duration(invocation.maximumTime)); run the same command again to resume\n")
                return FastgetError.Code.temporary.exitCode
            }
            Console.write("fastget: interrupted; run the same command again to resume\n")
            return FastgetError.Code.cancelled.exitCode
        }
        if !invocation.quiet && !invocation.json {
            Console.write("fastget: \(completed) of \(urls.count) downloads complete\n")
        }
        return firstFailure ?? failureCode(added)
    }

    /// Lines for one download of the batch: its outcome, and with --json all of its events.
    private static func report(_ event: DownloadEvent, of download: Download, _ invocation: Invocation, _ display: BatchDisplay?) {
        let url = download.url.description
        if invocation.json { JSONEvents.write(event, url: url) }
        switch event {
        case .progress(let progress):
            let name = download.destination.split(separator: "/").last.map(String.init) ?? url
            display?.update(url, name: name, progress)
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
            let text = "fastget: error: \(url): \(error.message)\n" + (error.hint.map { "hint: \($0)\n" } ?? "")
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
                return error.exitCode
            }
        }
        return ExitStatus.success
    }

    /// The whole file at `path`, or standard input for "-"; nil when it cannot be read.
    static func readAll(_ path: String) -> String? {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { if descriptor != 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
