/// Events that happen on worker threads (or inside the probe), held until the coordinator
/// thread publishes them.
final class EventQueue: Sendable {
    private let events = Locked<[DownloadEvent]>([])

    func post(_ event: DownloadEvent) { events.withLock { $0.append(event) } }

    func take() -> [DownloadEvent] {
        events.withLock { events in
            defer { events = [] }
            return events
        }
    }
}
