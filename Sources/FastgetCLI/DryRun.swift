import Fastget

/// `--dry-run` (`--spider`): probe only, and say what a download would do; nothing is written.
enum DryRun {
    static func run(_ invocation: Invocation) -> Int32 {
        do throws(FastgetError) {
            let download = try Download(url: invocation.url!, options: invocation.options, session: try invocation.session())
            let plan = try download.dryRun()
            if invocation.json {
                JSONEvents.line("dry_run", fields(plan))
            } else {
                Console.write(lines(plan, invocation).map { "\($0.0.padding(11))\($0.1)\n" }.joined(), to: 1)
            }
            return ExitStatus.success
        } catch {
            if invocation.json { JSONEvents.error(error) }
            Console.error(error.message, hint: error.commandLineHint)
            return ExitStatus.of(error)
        }
    }

    /// `url  http://…` and the rest, as label and text.
    static func lines(_ plan: DownloadPlan, _ invocation: Invocation) -> [(String, String)] {
        let resource = plan.resource
        let planText: String
        if plan.connections == .fixed(1) && !resource.isSegmentable {
            planText = "one stream (" + (resource.acceptsRanges ? "the length is unknown" : "the server serves no byte ranges") + ")"
        } else if case .automatic = plan.connections, plan.ranges.count <= 1 {
            planText = plan.connections.text
        } else {
            planText =
                Summary.counted(plan.ranges.count, "range") + ": "
                + plan.ranges.prefix(4).map { "\($0.start)-\($0.end - 1)" }.joined(separator: ", ") + (plan.ranges.count > 4 ? ", …" : "")
                + "; " + plan.connections.text
        }
        let journal: String =
            switch plan.journal {
            case .none: "none"
            case .resumable(let bytes): "resumes, \(Format.bytes(Double(bytes))) on disk"
            case .unusable(let reason): reason
            }
        var lines: [(String, String)] = [
            ("url", resource.url.withoutCredentials.description),
            ("length", resource.length.map { "\($0) (\(Format.bytes(Double($0))))" } ?? "unknown"),
            ("ranges", resource.acceptsRanges ? "yes" : "no"),
            ("validator", resource.strongETag.map { "ETag \($0)" } ?? resource.lastModified.map { "Last-Modified \($0)" } ?? "none"),
            ("digest", resource.announcedDigest.map { "\($0.algorithm.rawValue) (\(resource.announcedDigestField ?? "digest"))" } ?? "none"),
            ("name", plan.destination + (plan.destinationExists ? " (exists)" : "")),
            ("plan", planText),
            ("journal", journal),
            ("mirrors", resource.announcedMirrors.isEmpty ? "none announced" : "\(resource.announcedMirrors.count) announced"),
        ]
        if let continuation = plan.continuation {
            let text = "from \(continuation.stateFile): \(continuation.tool) marks \(continuation.bytesDone) bytes done; the rest is fetched"
            lines.insert(("continues", text), at: lines.count - 1)
        }
        return lines
    }

    /// The `dry_run` object's fields.
    static func fields(_ plan: DownloadPlan) -> [(String, JSON)] {
        let resource = plan.resource
        var journal: [(String, JSON)]
        switch plan.journal {
        case .none: journal = [("state", .string("none"))]
        case .resumable(let bytes): journal = [("state", .string("resumable")), ("bytes_on_disk", .int(bytes))]
        case .unusable(let reason): journal = [("state", .string("unusable")), ("reason", .string(reason))]
        }
        return [
            ("url", .string(resource.url.withoutCredentials.description)), ("length", JSON.optional(resource.length)),
            ("ranges", .bool(resource.acceptsRanges)),
            ("validator", JSON.optional(resource.strongETag ?? resource.lastModified)),
            ("digest", JSON.optional(resource.announcedDigest?.description)),
            ("name", .string(plan.destination)), ("exists", .bool(plan.destinationExists)),
            ("plan", .array(plan.ranges.map { .array([.int($0.start), .int($0.end)]) })),
            ("connections", plan.connections.json),
            ("journal", .object(journal)),
            ("mirrors", .array(resource.announcedMirrors.map { .string($0.url.description) })),
        ]
    }
}

extension DownloadPlan.Connections {
    /// "4 connections", "auto: one connection first, more while they help, up to 16": what
    /// the dry run and `-v` say of the count.
    var text: String {
        switch self {
        case .fixed(let count): Summary.counted(count, "connection")
        case .automatic(let most): "auto: one connection first, more while they help, up to \(most)"
        }
    }

    /// `{"count": 4}`, `{"auto": true, "up_to": 16}`.
    var json: JSON {
        switch self {
        case .fixed(let count): .object([("count", .int(Int64(count)))])
        case .automatic(let most): .object([("auto", .bool(true)), ("up_to", .int(Int64(most)))])
        }
    }
}

extension String {
    /// The text followed by blanks up to `width` (at least one).
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
