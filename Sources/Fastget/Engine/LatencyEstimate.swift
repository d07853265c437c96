import Synchronization

/// How long a request takes to be answered lately (request sent to response head), smoothed
/// over the workers' samples: the steal and hedge rules weigh a split against it.
final class LatencyEstimate: Sendable {
    private let microseconds = Atomic<Int64>(0)

    /// Seconds; 0 until a request was answered.
    var seconds: Double { Double(microseconds.load(ordering: .relaxed)) / 1e6 }

    func record(_ seconds: Double) {
        let sample = Int64(seconds * 1e6)
        let previous = microseconds.load(ordering: .relaxed)
        // Races between workers lose a sample at worst; the value is an estimate.
        microseconds.store(previous == 0 ? sample : (previous * 3 + sample) / 4, ordering: .relaxed)
    }
}
