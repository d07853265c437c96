/// Why a URL was rejected.
public struct URLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in a few words.
    public let reason: String
    /// The reason.
    public var description: String { reason }
}
