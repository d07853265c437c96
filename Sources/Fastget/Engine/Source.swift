import Synchronization

/// One server of the file: the URL the download was given (index 0, which follows
/// `Transfer.location`, with its redirects and their renewal) or a mirror, with the validator
/// its own probe gave (ETags differ between mirrors). A source that fails is dropped for the
/// rest of the run and the others carry its ranges.
final class Source: Sendable {
    let index: Int
    /// A mirror's URL after its probe's redirects; unused for index 0.
    let mirrorURL: HTTPURL?
    /// Sent as `If-Range` with this source's range requests.
    let validator: Validator?
    /// Body bytes written from this source.
    let bytes = Atomic<Int64>(0)
    private let dropReason = Locked<String?>(nil)

    init(index: Int, mirrorURL: HTTPURL?, validator: Validator?) {
        self.index = index
        self.mirrorURL = mirrorURL
        self.validator = validator
    }

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

    /// Where `source`'s requests go now.
    func url(of source: Source) -> HTTPURL { source.mirrorURL ?? url }

    /// Drops `source` after `failure` when another source is still alive, and says so; false
    /// when it is the last one (then the failure is the download's).
    func drop(_ source: Source, because failure: String) -> Bool {
        // The check and the drop as one step: two workers must not drop the last two at once.
        let dropped = droppingSources.withLock { _ -> Bool? in
            guard sources.count > 1, sources.contains(where: { $0 !== source && !$0.isDropped }) else { return nil }
            return source.drop(failure)
        }
        guard let dropped else { return false }
        guard dropped else { return true }
        post(.notice("dropped \(url(of: source).withoutCredentials.origin) for this run: \(failure); carrying on with the other servers"))
        return true
    }
}
