/// A command-line mistake: reported as a usage error (exit 64) before any network access.
struct UsageError: Error {
    let message: String
}
