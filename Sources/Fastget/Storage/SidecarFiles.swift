/// The files a download keeps beside its destination `NAME`, named here and nowhere else:
/// `NAME.part` (the bytes, renamed to `NAME` when complete), `NAME.fastget` (the journal) and
/// `NAME.fastget.lock` (ownership, while a download runs).
package struct SidecarFiles: Sendable, Equatable {
    static let partSuffix = ".part"
    static let journalSuffix = ".fastget"
    static let lockSuffix = ".fastget.lock"
    static let temporarySuffix = ".tmp"

    /// The most bytes a sidecar's name adds to `NAME`'s: the journal's temporary,
    /// `NAME.fastget.<random>.tmp`.
    package static let longestSuffixBytes = max(
        partSuffix.utf8.count, lockSuffix.utf8.count,
        journalSuffix.utf8.count + 1 + ProcessIdentity.longestSuffixBytes + temporarySuffix.utf8.count)
    /// The longest file name that leaves room for every sidecar within `NAME_MAX` (255 bytes).
    package static let longestNameBytes = 255 - longestSuffixBytes

    /// The final path.
    package let destination: String

    package init(_ destination: String) { self.destination = destination }

    /// `NAME.part`.
    package var part: String { destination + SidecarFiles.partSuffix }
    /// `NAME.fastget`.
    package var journal: String { destination + SidecarFiles.journalSuffix }
    /// `NAME.fastget.lock`.
    package var lock: String { destination + SidecarFiles.lockSuffix }

    /// A new name for the journal's temporary, this process's own: `NAME.fastget.<17 random letters and digits>.tmp`.
    static func temporary(forJournal journalPath: String) -> String {
        journalPath + "." + ProcessIdentity.uniqueSuffix() + temporarySuffix
    }

    /// What is at the destination, `.part` and journal, each looked at once (`lstat`: a link is
    /// not followed). Taken under the download's lock: another download cannot change what it
    /// saw, and whatever else appears later meets exclusive creation and renames that never
    /// replace, not a decision made on this look.
    package struct Look: Sendable {
        package let destination: FileSystem.Status?
        package let part: FileSystem.Status?
        package let journal: FileSystem.Status?
    }

    /// Looks at the destination, `.part` and journal (three `lstat`s).
    package func look() -> Look {
        Look(destination: FileSystem.entryStatus(destination), part: FileSystem.entryStatus(part), journal: FileSystem.entryStatus(journal))
    }

    /// `look` with the `.part` and journal looked at again (two `lstat`s): another program may
    /// have put one there since (a look taken before the probe). The destination is not: a file
    /// that appears there is met by the final rename, which never replaces.
    package func relookingSidecars(_ look: Look) -> Look {
        Look(destination: look.destination, part: FileSystem.entryStatus(part), journal: FileSystem.entryStatus(journal))
    }

    /// The files whose journal is at `journalPath`, nil when its file name is no journal's
    /// (`DIR/.fastget`, the bare suffix, names no download).
    package static func owning(journal journalPath: String) -> SidecarFiles? {
        let name = journalPath.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(journalPath)
        guard name.hasSuffix(journalSuffix), name.count > journalSuffix.count else { return nil }
        return SidecarFiles(String(journalPath.dropLast(journalSuffix.count)))
    }
}
