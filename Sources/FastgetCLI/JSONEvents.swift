import Fastget

/// A JSON value, written without Foundation.
indirect enum JSON {
    case string(String)
    case int(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    var text: String {
        switch self {
        case .string(let value): JSON.quoted(value)
        case .int(let value): String(value)
        case .number(let value): value.isFinite ? Format.fixed(value, 3) : "null"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): "{" + fields.map { JSON.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func optional(_ value: Int64?) -> JSON { value.map { .int($0) } ?? .null }
    static func optional(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
}

/// `--json`: one JSON object per line on stdout for each event of the download (see the README
/// for the schema): start, progress, retry, steal, hedge, checkpoint, notice, then done or error.
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
            line("start", [
                ("url", .string(resource.url.description)), ("length", JSON.optional(resource.length)),
                ("validator", JSON.optional(resource.strongETag ?? resource.lastModified)),
                ("segments", .array(segments.map { .array([.int($0.start), .int($0.end)]) })),
                ("resumed_bytes", .int(resumed)),
            ])
        case .progress(let progress):
            line("progress", [
                ("bytes", .int(progress.completedBytes)), ("total", JSON.optional(progress.totalBytes)),
                ("elapsed", .number(progress.elapsed)),
                ("segments", .array(progress.segments.map { segment in
                    .object([("start", .int(segment.range.start)), ("end", .int(segment.range.end)),
                             ("written", .int(segment.written)), ("speed", .int(max(0, segment.speed))),
                             ("state", .string(segment.state.rawValue))])
                })),
            ])
        case .retry(let attempt, let error):
            line("retry", [("attempt", .int(Int64(attempt))), ("code", .string(error.code.rawValue)), ("message", .string(error.message))])
        case .steal(let range):
            line("steal", [("start", .int(range.start)), ("end", .int(range.end))])
        case .hedge(let range, let won):
            line("hedge", [("start", .int(range.start)), ("end", .int(range.end)), ("won", .bool(won))])
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
            ("segments", .int(Int64(report.segments))), ("steals", .int(Int64(report.steals))),
            ("hedges", .int(Int64(report.hedges))), ("retries", .int(Int64(report.retries))),
            ("resumed_bytes", .int(report.resumedBytes)),
        ]
        if let checksum { fields.append((checksum.algorithm.rawValue.replacingDashes(), .string(checksum.hex))) }
        line("done", fields, url: url)
    }

    static func error(_ error: FastgetError, url: String? = nil) {
        line("error", [("code", .string(error.code.rawValue)), ("exit_code", .int(Int64(error.exitCode))),
                       ("message", .string(error.message)), ("hint", JSON.optional(error.hint))], url: url)
    }
}

extension String {
    /// "sha-256" → "sha256", as a JSON key.
    func replacingDashes() -> String { String(filter { $0 != "-" }) }
}
