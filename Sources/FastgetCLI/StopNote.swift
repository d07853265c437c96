import Fastget

/// What the command line says when Ctrl-C (or SIGTERM) stopped a download: not an error, but
/// what is kept and how to go on.
///
/// Unchecked Sendable: it is used only on the thread that runs the download, where events are
/// delivered.
final class StopNote: @unchecked Sendable {
    private var resource: RemoteResource?
    private var kept: Int64?
    private var streamed: Int64 = 0

    func observe(_ event: DownloadEvent) {
        switch event {
        case .transferStarted(let resource, _, _): self.resource = resource
        case .checkpoint(let bytes): kept = bytes
        case .progress(let progress): streamed = progress.completedBytes
        default: break
        }
    }

    /// `fastget: paused: 12.0 MiB of 32.0 MiB kept; run the same command again to resume
    /// (journal: f.bin.fastget)`, or why nothing is kept.
    func line(_ error: FastgetError, toStream: Bool, maximumTime: Double? = nil) -> String {
        var text: String
        if let hint = error.commandLineHint, let kept {
            text = "paused: \(Format.bytes(Double(kept))) of \(resource?.length.map { Format.bytes(Double($0)) } ?? "?") kept; \(hint)"
        } else if let hint = error.commandLineHint {
            text = "paused; \(hint)"
        } else if resource == nil {
            text = "stopped before the download began"
        } else if toStream {
            text = "stopped after \(Format.bytes(Double(streamed))); a stream cannot resume"
        } else if resource?.isSegmentable == false {
            text = "stopped; nothing is kept: the server does not serve byte ranges, so this download could not resume"
        } else {
            text = "stopped before anything was kept; run the same command again to start over"
        }
        if let maximumTime, text.hasPrefix("paused") {
            text = "stopped after --max-time \(Format.duration(maximumTime))" + text.dropFirst("paused".count)
        }
        return "fastget: \(text)\n"
    }
}
