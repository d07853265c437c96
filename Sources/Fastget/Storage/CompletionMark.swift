/// What a file fastget completed carries, as extended attributes: `user.xdg.origin.url`, the
/// URL as given without credentials (as curl's and wget's `--xattr` write it), and
/// `user.fastget.complete`: the length, the validator and the file's modification time when it
/// was completed. A later run that finds the same at its destination knows the file is this
/// download, finished and not written since, and says it is complete instead of refusing an
/// existing file: the rerun of an interrupted `-i` list completes it. Without a validator (no
/// way to tell versions apart), or where the file system has no extended attributes, nothing
/// is marked, and an existing file is refused as before.
enum CompletionMark {
    static let origin = "user.xdg.origin.url"
    static let complete = "user.fastget.complete"

    /// The `user.fastget.complete` text for `header` (length, validator) at `mtime`: the length,
    /// what `If-Range` would carry, the time, then every validator (a weak ETag changes where
    /// Last-Modified does not). Nil without a validator that can guard a range.
    static func text(_ header: Journal, mtime: String) -> String? {
        guard let validator = header.validator, let guarded = validator.guardDescription else { return nil }
        return "\(header.length)\n\(guarded)\n\(mtime)\n\(validator)"
    }

    /// Marks the open `.part` of the download `header` describes, just before its rename.
    static func mark(_ file: FileDescriptor, as header: Journal) {
        guard let mtime = try? file.modificationTime(), let text = text(header, mtime: mtime) else { return }
        if file.setAttribute(origin, header.url) { file.setAttribute(complete, text) }
    }

    /// The ETag, weak or strong, the file at `path` was completed under, when it was this
    /// `url`'s (for `If-None-Match`, which compares weakly: RFC 9110 §13.1.2), and untouched
    /// since: its length and modification time still the mark's (a file written since is not
    /// that version any more, whatever the server says). A three-line mark knows only a strong one.
    static func etag(_ path: String, url: String) -> String? {
        guard FileSystem.attribute(path, origin) == url, let text = FileSystem.attribute(path, complete),
            let size = FileSystem.size(path), let mtime = FileSystem.modificationTime(path)
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == "\(size)", lines[2] == mtime else { return nil }
        let etag: String
        // The fourth line is the validator's description: "ETag X, Last-Modified Y", either alone.
        if lines.count >= 4, lines[3].hasPrefix("ETag ") {
            let bytes = Array(lines[3].utf8.dropFirst(5))
            let separator = Array(", Last-Modified ".utf8)
            // The last one: a date never holds it, an ETag's opaque text might.
            let end =
                stride(from: bytes.count - separator.count, through: 0, by: -1).first {
                    bytes[$0..<($0 + separator.count)].elementsEqual(separator)
                } ?? bytes.count
            etag = String(decoding: bytes[..<end], as: UTF8.self)
        } else if lines[1].hasPrefix("ETag ") {
            etag = String(lines[1].dropFirst(5))
        } else {
            return nil
        }
        // A mark is only a file attribute anyone with write access can plant: an ETag that
        // could not be sent in If-None-Match means no mark, not a failure on every run.
        return containsControlCharacter(etag) ? nil : etag
    }

    /// Whether the file at `path` is the download `header` describes, completed and untouched.
    static func marks(_ path: String, as header: Journal) -> Bool {
        guard FileSystem.size(path) == header.length, FileSystem.attribute(path, origin) == header.url,
            let mtime = FileSystem.modificationTime(path), let expected = text(header, mtime: mtime)
        else { return false }
        guard let stored = FileSystem.attribute(path, complete) else { return false }
        // A mark of three lines comes from a release that recorded only what If-Range carries,
        // dropping a weak ETag: against a server that sends one now, it cannot tell versions apart.
        if stored == expected { return true }
        if let validator = header.validator, validator.etag != nil, validator.strongETag == nil { return false }
        return stored == expected.split(separator: "\n").prefix(3).joined(separator: "\n")
    }
}
