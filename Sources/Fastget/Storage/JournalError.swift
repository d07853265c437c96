/// Why a journal was not trusted. Each kind of damage has its own case.
package enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Shorter than its header or its declared payload says.
    case truncated
    /// Does not start with the magic: not a fastget journal.
    case foreign
    case unsupportedVersion(UInt16)
    /// The checksum does not match the contents: damaged on disk.
    case checksumMismatch
    /// Bytes after the checksum.
    case trailingBytes
    /// A field is out of range or the segments do not tile the file.
    case invalid(String)
    /// Not this user's to read or replace: unreadable, another user's, or with other names
    /// (hard links). Says why.
    case notOwned(String)

    /// Whether the file is fastget's own, damaged or from another release (it starts with the
    /// magic, or with part of it: a first journal torn by a power cut): set aside with a notice.
    /// Anything else at the journal's name is somebody's file, never removed.
    package var isFastgets: Bool {
        switch self {
        case .foreign, .notOwned: false
        case .truncated, .unsupportedVersion, .checksumMismatch, .trailingBytes, .invalid: true
        }
    }

    package var description: String {
        switch self {
        case .truncated: "journal is truncated"
        case .foreign: "not a fastget journal"
        case .unsupportedVersion(let version): "journal version \(version) is not supported"
        case .checksumMismatch: "journal checksum mismatch"
        case .trailingBytes: "journal has trailing bytes"
        case .invalid(let reason): "journal is invalid: \(reason)"
        case .notOwned(let reason): reason
        }
    }
}
