import Fastget
import FastgetTestSupport
import Foundation
import Testing

/// A value shared between threads (NSLock: these tests use only the library's public API).
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// Records a download's events as they are delivered, with the thread each came on.
final class EventLog: Sendable {
    struct Entry: Sendable {
        let event: DownloadEvent
        let time: Double
        /// `pthread_self()` of the thread that delivered it.
        let thread: UInt
    }

    private let entries = Shared<[Entry]>([])

    init(_ download: Download) {
        download.onEvent { [entries] event in
            let entry = Entry(event: event, time: ProcessInfo.processInfo.systemUptime, thread: UInt(pthread_self()))
            entries.withLock { $0.append(entry) }
        }
    }

    var events: [DownloadEvent] { entries.current.map(\.event) }
    var times: [Double] { entries.current.map(\.time) }
    var threads: Set<UInt> { Set(entries.current.map(\.thread)) }

    /// The states the download went through, in order.
    var states: [DownloadState] {
        events.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
    }

    var progressCount: Int { events.filter { if case .progress = $0 { true } else { false } }.count }

    var finalEvents: [DownloadEvent] { events.filter(\.isFinal) }

    /// The segments of the latest progress event.
    var segments: [SegmentProgress] {
        for event in events.reversed() { if case .progress(let progress) = event { return progress.segments } }
        return []
    }

    /// The bytes written according to the latest progress event.
    var completedBytes: Int64 {
        for event in events.reversed() { if case .progress(let progress) = event { return progress.completedBytes } }
        return 0
    }
}

/// Polls `condition` until it holds or `timeout` seconds pass; returns whether it held.
@discardableResult
func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

/// Options for small test downloads into `directory`.
func testOptions(_ directory: TemporaryDirectory, segments: Int = 4) -> DownloadOptions {
    var options = DownloadOptions()
    options.segments = segments
    options.minimumSegmentSize = 64 * 1024
    options.directory = directory.path
    options.ioTimeout = .seconds(10)
    options.connectionTimeout = .seconds(5)
    options.progressPeriod = .seconds(0.05)
    return options
}

/// Thrown by `within` when its bound passes.
struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "not done within \(seconds) s" }
}

/// `body`'s value, or `TimedOut` once `seconds` pass (then `body` is cancelled): the bound on an
/// await in a test, never a pause to let something happen.
func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw TimedOut(seconds: seconds) }
        return value
    }
}
