import Synchronization

/// One server of the file: the URL the download was given (index 0, which follows
/// `Transfer.location`, with its redirects and their renewal) or a mirror, with the validator
/// its own probe gave (ETags differ between mirrors). A source that fails is dropped for the
/// rest of the run and the others carry its ranges.
final class Source: Sendable {
    let index: Int
    /// The URL as given, without credentials: how reports and the display name it (the URL
    /// after redirects may carry a signed token).
    let name: String
    /// Its host and port, for the display.
    let host: String
    /// A mirror's URL after its probe's redirects; unused for index 0.
    let mirrorURL: HTTPURL?
    /// Sent as `If-Range` with this source's range requests.
    let validator: Validator?
    /// Its connections may reach public addresses only (a mirror a public server named).
    let publicOnly: Bool
    /// Body bytes written from this source.
    let bytes = Atomic<Int64>(0)
    private let dropReason = Locked<String?>(nil)
    /// The ranges its answers wrote, in the order they ended, touching ones joined.
    private let servedRanges = Locked<[ByteRange]>([])

    init(index: Int, given: HTTPURL, mirrorURL: HTTPURL?, validator: Validator?, publicOnly: Bool = false) {
        self.publicOnly = publicOnly
        self.index = index
        name = given.withoutCredentials.description
        host = given.authority
        self.mirrorURL = mirrorURL
        self.validator = validator
    }

    /// Records that `range` was written from this source (a later write by another source may
    /// have replaced part of it: a range it stole or re-fetched).
    func served(_ range: ByteRange) {
        guard range.count > 0 else { return }
        servedRanges.withLock { ranges in
            if let last = ranges.last, last.end == range.start {
                ranges[ranges.count - 1] = ByteRange(start: last.start, end: range.end)
            } else {
                ranges.append(range)
            }
        }
    }

    /// What `served` recorded, in file order with touching ranges joined.
    var served: [ByteRange] { ByteRange.joined(servedRanges.withLock { $0 }) }

    var isDropped: Bool { dropReason.withLock { $0 != nil } }
    /// Why it was dropped, once it was.
    var dropped: String? { dropReason.withLock { $0 } }

    /// Drops the source with `reason`; false when it was dropped already.
    fileprivate func drop(_ reason: String) -> Bool {
        dropReason.withLock { current in
            guard current == nil else { return false }
            current = reason
            return true
        }
    }
}

/// A mirror that passed its probe: the URL given, where its redirects led, and its validator.
struct ProbedMirror: Sendable {
    let given: HTTPURL
    let url: HTTPURL
    let validator: Validator?
    /// Its connections may reach public addresses only (a public server named it).
    var publicOnly = false
}

/// A mirror's answer that disqualifies it: another length, a Content-Range that is not the
/// request, another version. Nothing of that answer is written.
struct SourceRejected: Error {
    let reason: String
}

extension Transfer {
    /// The source worker `id` fetches its next range from: the live sources in turn by worker,
    /// so connections spread over them. Nil when every source is dropped.
    func source(for id: Int) -> Source? {
        let alive = sources.filter { !$0.isDropped }
        return alive.isEmpty ? nil : alive[id % alive.count]
    }

    /// Each source's figures, for progress and the report; empty with one source.
    func sourceFigures() -> [SourceFigures] {
        guard sources.count > 1 else { return [] }
        return sources.map { SourceFigures(url: $0.name, host: $0.host, bytes: $0.bytes.load(ordering: .relaxed), dropped: $0.dropped) }
    }

    /// Where `source`'s requests go now.
    func url(of source: Source) -> HTTPURL { source.mirrorURL ?? url }

    /// Drops `source` after `failure` when another source is still alive, and says so; false
    /// when it is the last one (then the failure is the download's).
    func drop(_ source: Source, because failure: String) -> Bool {
        // Named as given: where its redirects led may carry a signed token.
        let failure = HTTPURL.redactingQueries(
            in: HTTPURL.replacing(url(of: source).withoutCredentials.description, with: source.name, in: failure), keeping: source.name)
        // The check and the drop as one step: two workers must not drop the last two at once.
        let dropped = droppingSources.withLock { drops -> Bool? in
            guard sources.count > 1, sources.contains(where: { $0 !== source && !$0.isDropped }) else { return nil }
            guard source.drop(failure) else { return false }
            drops += 1
            return true
        }
        guard let dropped else { return false }
        guard dropped else { return true }
        post(.notice("dropped \(source.name) for this run: \(failure); carrying on with the other servers"))
        return true
    }

    /// "http://host/path served bytes 0-1048575, 4194304-8388607" (inclusive, as in `Range`),
    /// the first eight ranges and how many more; resumed bytes are not known by server.
    func servedNote(_ source: Source) -> String {
        let ranges = source.served
        let shown = ranges.prefix(8).map { "\($0.start)-\($0.end - 1)" }.joined(separator: ", ")
        let more = ranges.count > 8 ? " and \(ranges.count - 8) more ranges" : ""
        let name = source.name
        return ranges.isEmpty ? "\(name) served no bytes in this run" : "\(name) served bytes \(shown)\(more) in this run"
    }
}
