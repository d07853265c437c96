/// Sidecar files are fastget's or untouched. Whatever is at `NAME.part`, `NAME.fastget`, its
/// temporary or the lock may have been put there by someone else: a symbolic link to a file
/// the user owns, a FIFO that blocks every open, another program's partial file. Such a path is
/// never opened through a link, never waited on, never read, written or truncated unless it is a
/// regular file, and a new one is always created exclusively. Anything else is refused with
/// exit 73, naming the path, and left as it is.
extension SidecarFiles {
    /// The extended attribute on a `.part` fastget created or took charge of (`-c`): with no
    /// journal beside it (a single stream, a small file stopped before its first journal, a
    /// failed digest, a kill between two steps), it tells fastget's `.part` from another
    /// program's of the same name (Firefox and yt-dlp use the suffix too). While the file is
    /// written its value (`partMarkValue`) names the file's inode and the download's URL
    /// (`tag`): a mark copied with the file (`cp -a`, `rsync -X`, `tar --xattrs`) is on
    /// another inode and counts for nothing. Just before the rename the same attribute becomes
    /// the completion mark (`CompletionMark`), in one `fsetxattr`: a kill at any moment leaves
    /// a `.part` that names its URL. A completed one names no inode: its copy, unchanged, at
    /// the same `.part` name counts as fastget's (its bytes are that URL's download). One
    /// short attribute fits in the inode (ext4 keeps about 90 bytes there); two, or a long
    /// one, take a block of their own for every file.
    static let partMark = "user.fastget"

    /// The `partMark` of the file `inode` holding a download of `url` (without credentials).
    static func partMarkValue(inode: UInt64, url: String) -> String { "p \(inode) \(tag(url))" }

    /// What the marks store of a text (a URL; for a completed file also its length and time,
    /// `CompletionMark`): the first 128 bits of its SHA-256, base64url without padding (22
    /// characters). Not a CRC: a server could pick a URL of its own (a query string) with the
    /// CRC of another's, and have its file pass for that one's completed download.
    static func tag(_ text: String) -> String {
        let digest = SmallSHA256.digest(text.utf8)
        // base64url (RFC 4648 §5) of 16 bytes: five whole groups of three, then one byte (two
        // characters, no padding).
        return String(unsafeUninitializedCapacity: 22) { characters in
            tagAlphabet.withUTF8Buffer { alphabet in
                for group in 0..<6 {
                    let at = 3 * group
                    let bits = UInt32(digest[at]) << 16 | (at < 15 ? UInt32(digest[at + 1]) << 8 | UInt32(digest[at + 2]) : 0)
                    for place in 0..<(at < 15 ? 4 : 2) {
                        characters[4 * group + place] = alphabet[Int(bits >> UInt32(18 - 6 * place) & 63)]
                    }
                }
            }
            return 22
        }
    }

    private static let tagAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The mark of earlier releases, read so that their `.part` files still resume: its
    /// value is the inode, a space, and the URL.
    static let earlierPartMark = "user.fastget.part"

    /// Whether the `.part` with `status` carries a mark naming `url`: while written (this
    /// inode), once complete and still as it was completed (its rename did not happen), or an
    /// earlier release's.
    private func isMarked(_ status: FileSystem.Status, url: String) -> Bool {
        if let value = FileSystem.attribute(part, SidecarFiles.partMark) {
            return value == SidecarFiles.partMarkValue(inode: status.inode, url: url)
                || CompletionMark.names(value, url: url, size: status.size, mtime: FileSystem.modificationTime(part))
        }
        return FileSystem.attribute(part, SidecarFiles.earlierPartMark) == "\(status.inode) \(url)"
    }

    /// Why a sidecar that is there is not this user's to adopt, nil when it is: it has other
    /// names (a hard link planted at `.part` would have the download written into the user's
    /// file), or it belongs to another user (in a directory others may write, their bytes
    /// would end up under this user's name).
    static func ownershipProblem(_ status: FileSystem.Status) -> String? {
        if status.links != 1 { return "it has \(status.links) names (hard links)" }
        let user = ProcessIdentity.effectiveUser
        if status.owner != user { return "it belongs to user \(status.owner), not to this one (\(user))" }
        return nil
    }

    /// Refuses a name whose sidecars would not fit within `NAME_MAX`, before any is created:
    /// otherwise the journal's temporary fails part-way, and every rerun the same way.
    package func checkNameLength() throws(FastgetError) {
        let utf8 = destination.utf8
        let last = utf8[(utf8.lastIndex(of: UInt8(ascii: "/")).map(utf8.index(after:)) ?? utf8.startIndex)...]
        let bytes = last.count
        guard bytes > SidecarFiles.longestNameBytes else { return }
        let name = String(decoding: last, as: UTF8.self)
        throw FastgetError(
            .cannotCreateOutput,
            "the file name \(name.prefix(40))… is \(bytes) bytes; fastget needs at most \(SidecarFiles.longestNameBytes), to keep \(SidecarFiles.journalSuffix) files beside it within 255",
            remedy: .shorterName)
    }

    /// Refuses when `.part`, the journal or the lock is there and is not a regular file: a
    /// symbolic link (to anything), a FIFO, a device, a directory, a socket.
    package func refuseUnlessRegular() throws(FastgetError) {
        for path in [part, journal, lock] {
            if let kind = FileSystem.entryKind(path), kind != .regular { throw SidecarFiles.refusal(path, kind) }
        }
    }

    /// `refuseUnlessRegular` on what `look` saw at `.part` and the journal, for a download
    /// that holds its lock (`FileLock` took only a regular file).
    func refuseUnlessRegular(_ look: Look) throws(FastgetError) {
        for (path, status) in [(part, look.part), (journal, look.journal)] {
            if let kind = status?.kind, kind != .regular { throw SidecarFiles.refusal(path, kind) }
        }
    }

    /// Why `path` is left alone: it is `kind`, not a file fastget can own.
    static func refusal(_ path: String, _ kind: FileSystem.Kind?) -> FastgetError {
        let what =
            switch kind {
            case .symbolicLink?: "a symbolic link"
            case .fifo?: "a FIFO"
            case .characterDevice?, .blockDevice?: "a device"
            case .directory?: "a directory"
            case .socket?: "a socket"
            case .regular?, .other?, nil: "not a file fastget made"
            }
        return FastgetError(
            .cannotCreateOutput, "\(path) is \(what); leaving it alone", remedy: .moveAwayOrSaveElsewhere)
    }

    /// Opens the existing regular file at `path` (see `FileDescriptor.openRegular`); anything
    /// else there is refused untouched.
    /// `owned`: it must also be this user's alone (`ownershipProblem`), as a `.part` to resume.
    static func openExisting(_ path: String, readOnly: Bool = false, owned: Bool = false) throws(FastgetError) -> FileDescriptor {
        let file: FileDescriptor
        let status: FileSystem.Status
        do {
            file = try FileDescriptor.openRegular(path, readOnly: readOnly)
            status = try file.status()
        } catch let error where error.errno == Errno.fileExists || error.errno == Errno.tooManySymbolicLinkLevels {
            throw refusal(path, FileSystem.entryKind(path))
        } catch {
            throw FastgetError.local(error, path: path)
        }
        if owned, let problem = ownershipProblem(status) {
            throw FastgetError(
                .cannotCreateOutput, "\(path) is not this user's own file: \(problem); leaving it alone",
                remedy: .moveAwayOrSaveElsewhere)
        }
        return file
    }

    /// Creates `path` anew: a regular file there (one fastget may replace) is removed first,
    /// anything else is refused; the new file is created exclusively, so that nothing put
    /// there meanwhile is written through. The name is tried first: when it is free (every
    /// file of a list) that costs no lookup and no removal.
    static func replace(_ path: String) throws(FastgetError) -> FileDescriptor {
        do {
            return try FileDescriptor.createNew(path)
        } catch let error where error.errno == Errno.fileExists {
            // Something is there: looked at below.
        } catch {
            throw FastgetError.local(error, path: path, creating: true)
        }
        switch FileSystem.entryKind(path) {
        case nil: break
        case .regular?:
            do { try FileSystem.remove(path) } catch { throw FastgetError.local(error, path: path) }
        case let kind?: throw refusal(path, kind)
        }
        do {
            return try FileDescriptor.createNew(path)
        } catch let error where error.errno == Errno.fileExists {
            throw refusal(path, FileSystem.entryKind(path))
        } catch {
            throw FastgetError.local(error, path: path, creating: true)
        }
    }

    /// Whether `NAME.part` holds bytes fastget never took charge of for `url` (the download's,
    /// without credentials): a regular file with data, no journal of fastget's beside it (a
    /// file there that is none does not count), and no `partMark` naming this file and `url`.
    /// (An empty one holds nothing to lose: a kill between its creation and its mark leaves
    /// that.) Where the file system keeps no extended attributes, every such `.part` is taken
    /// for another program's: refused with a hint, never overwritten.
    package func partIsForeign(url: String) -> Bool {
        guard let status = FileSystem.entryStatus(part), status.kind == .regular, status.size > 0, !hasJournal else { return false }
        return !isMarked(status, url: url)
    }

    /// `partIsForeign` on what `look` saw: no `.part`, or no journal, costs no other lookup.
    func partIsForeign(url: String, _ look: Look) -> Bool {
        guard let status = look.part, status.kind == .regular, status.size > 0, look.journal == nil || !hasJournal else { return false }
        return !isMarked(status, url: url)
    }

    /// Whether a journal of fastget's is at `journal`: one that reads, or one damaged or from
    /// another release (`JournalError.isFastgets`).
    var hasJournal: Bool {
        switch Checkpointer.load(journal) {
        case nil: false
        case .success?: true
        case .failure(let error)?: error.isFastgets
        }
    }

    /// Refuses a file at `journal` that is not fastget's journal (`JournalError.isFastgets`):
    /// someone's notes, a file of another user's, one with other names. It is never read as a
    /// journal, set aside or removed. With `look`, nothing is read where it saw no journal.
    package func refuseUnlessJournal(_ look: Look? = nil) throws(FastgetError) {
        if let look, look.journal == nil { return }
        guard case .failure(let error)? = Checkpointer.load(journal), !error.isFastgets else { return }
        let why = error == .foreign ? "is not a fastget journal" : "is not this user's own file: \(error)"
        throw FastgetError(
            .cannotCreateOutput, "\(journal) \(why); leaving it alone", remedy: .moveAwayOrSaveElsewhere)
    }

    /// Why a foreign `NAME.part` is refused, with what the user can do about it.
    func foreignPartRefusal(destinationExists: Bool) -> FastgetError {
        FastgetError(
            .cannotCreateOutput, "\(part) was not made by fastget (no journal beside it); leaving it alone",
            remedy: destinationExists ? .moveAwayOrReplace : .replaceOrContinuePart)
    }
}
