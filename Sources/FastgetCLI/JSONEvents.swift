import Fastget

/// `--json`: one JSON object per line on stdout for each event of the download (the schema is
/// the DocC article CommandLineOutput): start, progress, retry, steal, hedge, checkpoint,
/// notice, then done or error.
enum JSONEvents {
    /// With `-i`, every line also names its download's URL.
    static func line(_ event: String, _ fields: [(String, JSON)], url: String? = nil) {
        let source: [(String, JSON)] = url.map { [("download", .string($0))] } ?? []
        Console.write(JSON.object([("event", .string(event))] + source + fields).text + "\n", to: 1)
    }

    /// The line for a download event; nothing for events the stream does not carry.
    static func write(_ event: DownloadEvent) { write(event, url: nil) }

    static func write(_ event: DownloadEvent, url: String?) {
        func line(_ event: String, _ fields: [(String, JSON)]) { JSONEvents.line(event, fields, url: url) }
        switch event {
        case .transferStarted(let resource, let segments, let resumed):
            line(
                "start",
                [
                    ("url", .string(resource.url.description)), ("length", JSON.optional(resource.length)),
                    ("validator", JSON.optional(resource.strongETag ?? resource.lastModified)),
                    ("segments", .array(segments.map { .array([.int($0.start), .int($0.end)]) })),
                    ("resumed_bytes", .int(resumed)),
                ])
        case .progress(let progress):
            line(
                "progress",
                [
                    ("bytes", .int(progress.completedBytes)), ("total", JSON.optional(progress.totalBytes)),
                    ("elapsed", .number(progress.elapsed)), ("total_elapsed", .number(progress.totalElapsed)),
                    (
                        "segments",
                        .array(
                            progress.segments.map { segment in
                                .object([
                                    ("start", .int(segment.range.start)), ("end", .int(segment.range.end)),
                                    ("written", .int(segment.written)), ("speed", .int(max(0, segment.speed))),
                                    ("state", .string(segment.state.rawValue)),
                                ])
                            })
                    ),
                ] + (progress.sources.isEmpty ? [] : [("sources", sources(progress.sources))]))
        case .retry(let attempt, let error):
            line("retry", [("attempt", .int(Int64(attempt))), ("code", .string(error.code.rawValue)), ("message", .string(error.message))])
        case .steal(let range):
            line("steal", [("start", .int(range.start)), ("end", .int(range.end))])
        case .hedge(let range, let won):
            line("hedge", [("start", .int(range.start)), ("end", .int(range.end)), ("won", .bool(won))])
        case .connectionsChanged(let count, let reason):
            line("connections", [("count", .int(Int64(count))), ("reason", .string(reason))])
        case .checkpoint(let bytes):
            line("checkpoint", [("bytes_on_disk", .int(bytes))])
        case .notice(let message):
            line("notice", [("message", .string(message))])
        case .stateChanged, .sizeKnown, .request, .completed, .failed, .cancelled:
            break // the outcome line comes from the run's result, exactly once
        }
    }

    static func done(_ report: DownloadReport, checksum: Checksum?, url: String? = nil) {
        var fields: [(String, JSON)] = [
            ("path", .string(report.path)), ("bytes", .int(report.bytes)), ("seconds", .number(report.seconds)),
            ("total_seconds", .number(report.totalSeconds)),
            ("segments", .int(Int64(report.workers))), ("steals", .int(Int64(report.steals))),
            ("hedges", .int(Int64(report.hedges))), ("retries", .int(Int64(report.retries))),
            ("resumed_bytes", .int(report.resumedBytes)),
        ]
        if let checksum { fields.append((checksum.algorithm.rawValue.replacingDashes(), .string(checksum.hex))) }
        if !report.sources.isEmpty { fields.append(("sources", sources(report.sources))) }
        line("done", fields, url: url)
    }

    /// `[{"url","host","bytes","dropped"?}]`, each server of a download with mirrors.
    static func sources(_ sources: [SourceFigures]) -> JSON {
        .array(
            sources.map { source -> JSON in
                var object: [(String, JSON)] = [
                    ("url", .string(source.url)), ("host", .string(source.host)), ("bytes", .int(source.bytes)),
                ]
                if let dropped = source.dropped { object.append(("dropped", .string(dropped))) }
                return .object(object)
            })
    }

    static func error(_ error: FastgetError, url: String? = nil) {
        line(
            "error",
            [
                ("code", .string(error.code.rawValue)), ("exit_code", .int(Int64(ExitStatus.of(error)))),
                ("message", .string(error.message)), ("hint", JSON.optional(error.commandLineHint)),
            ], url: url)
    }
}

extension String {
    /// "sha-256" → "sha256", as a JSON key.
    fileprivate func replacingDashes() -> String { String(filter { $0 != "-" }) }
}
