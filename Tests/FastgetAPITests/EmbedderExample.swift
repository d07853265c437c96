// An embedder's typical use of the library: queue downloads, show progress, handle failures.
// Compiled by the API tests, run by `EmbedderExampleTests`, and type-checked on its own against
// the library's public interface (see `PublicInterfaceTests`). The README shows it.
import Fastget

/// Downloads `urls` into `directory`, two at a time, printing a line per progress report and
/// one per outcome. Returns how many failed.
func downloadAll(_ urls: [String], into directory: String, print: @escaping @Sendable (String) -> Void) throws -> Int {
    var options = DownloadOptions()
    options.segments = 4
    options.retries = 2
    let queue = try DownloadQueue(directory: directory, maximumActive: 2, options: options)
    // Set before adding: a download may end as soon as it is added (a file already complete).
    queue.onEvent { download, event in
        switch event {
        case .progress(let progress):
            let total = progress.totalBytes.map { " of \($0)" } ?? ""
            print("\(download.destination): \(progress.completedBytes)\(total) bytes")
        case .completed(let report):
            print("\(report.path): done, \(report.bytes) bytes in \(report.seconds) s")
        case .failed(let error):
            // A typed error: a category (its `code`), one sentence, and what to do (`remedy`).
            print("\(download.url): failed (\(error.code)): \(error.message)")
        default:
            break
        }
    }
    for url in urls { try queue.add(url) }
    queue.waitUntilIdle()
    return queue.downloads.filter { $0.state == .failed }.count
}
