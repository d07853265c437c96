/// Connections a download may hold to its host, shared with the other downloads to that host
/// (a session's per-host cap). Never blocks: it grants what is free now.
protocol ConnectionAllowance: Sendable {
    /// Takes up to `count` connections; returns how many were granted (possibly 0).
    func reserve(_ count: Int) -> Int
    /// Gives back `count` connections taken earlier.
    func release(_ count: Int)
}
