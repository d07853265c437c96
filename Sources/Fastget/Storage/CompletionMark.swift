/// What a file fastget completed carries: its `.part`'s mark (`SidecarFiles.partMark`),
/// turned just before the rename into `d TAG VERSION ETAG`: the tag (`SidecarFiles.tag`) of
/// the URL (without credentials), the length and the file's modification time when it was
/// completed; the CRC-32 of every validator (a weak ETag changes where Last-Modified does
/// not; `-` when a strong ETag decides alone, RFC 9110 §8.8.1); and the ETag as sent (`-`
/// without one), for `If-None-Match`. A server that would have its file pass for another
/// URL's completed download must find a URL whose tag is the other's: about 2^64 SHA-256
/// computations for a pair it chooses both of (2^128 for a given one), and the time, to the
/// nanosecond, is not known before the file is written (except under `-R`, whole seconds). A
/// later run that finds the same at its destination knows the file is this download,
/// finished and not written since, and says it is complete instead of refusing an existing
/// file: the rerun of an interrupted `-i` list completes it. Without a validator that can
/// guard a range (no way to tell versions apart), or where the file system has no extended
/// attributes, nothing is marked, and an existing file is refused as before.
///
/// Earlier releases marked a file with two attributes, `user.xdg.origin.url` and
/// `user.fastget.complete` (the length, the validator `If-Range` carried, the time, then every
/// validator); those marks are still read. The two took a 4 KiB block of their own beside
/// every file on ext4 (a 64 KiB file took 68 KiB, a 1 KiB one 8 KiB); the one mark of a small
/// file fits in its inode. `user.xdg.origin.url` is written only when asked for
/// (`DownloadOptions.recordsOrigin`, curl's and wget's `--xattr`).
enum CompletionMark {
    static let origin = "user.xdg.origin.url"
    /// The completion mark of earlier releases (read only).
    static let complete = "user.fastget.complete"

    /// The tag of `url`'s download completed as a file of `size` bytes at `mtime`.
    private static func tag(_ url: String, size: Int64, mtime: String) -> String {
        SidecarFiles.tag("\(url)\n\(size)\n\(mtime)")
    }

    /// The mark's value for `header` (length, validator) at `mtime`; nil without a validator
    /// that can guard a range.
    static func value(_ header: Journal, mtime: String) -> String? {
        guard let validator = header.validator, validator.guardDescription != nil else { return nil }
        let tag = tag(header.url, size: header.length, mtime: mtime)
        let version = validator.strongETag != nil ? "-" : String(CRC32.checksum(validator.description.utf8), radix: 16)
        return "d \(tag) \(version) \(validator.etag ?? "-")"
    }

    /// The fields of a completion mark: "d", tag, version, ETag; nil for anything else (a
    /// `.part`'s mark while written, an earlier release's, a planted text).
    private static func fields(_ value: String) -> [Substring]? {
        let fields = value.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        return fields.count == 4 && fields[0] == "d" ? fields : nil
    }

    /// Whether `value` is a completion mark of `url`'s download on a file that is still
    /// `size` bytes long and last modified at `mtime`: as it was completed.
    static func names(_ value: String, url: String, size: Int64, mtime: String?) -> Bool {
        guard let fields = fields(value), let mtime else { return false }
        return fields[1] == tag(url, size: size, mtime: mtime)[...]
    }

    /// Turns the open `.part`'s mark into the completion mark of the download `header`
    /// describes, just before its rename. False when it is not marked (see the type).
    static func mark(_ file: FileDescriptor, as header: Journal) -> Bool {
        guard let mtime = try? file.modificationTime(), let value = value(header, mtime: mtime) else { return false }
        return file.setAttribute(SidecarFiles.partMark, value)
    }

    /// The ETag, weak or strong, the file at `path` was completed under, when it was this
    /// `url`'s (for `If-None-Match`, which compares weakly: RFC 9110 §13.1.2), and untouched
    /// since: its length and modification time still the mark's (a file written since is not
    /// that version any more, whatever the server says). A three-line mark knows only a strong one.
    static func etag(_ path: String, url: String) -> String? {
        if let value = FileSystem.attribute(path, SidecarFiles.partMark) {
            guard let size = FileSystem.size(path), names(value, url: url, size: size, mtime: FileSystem.modificationTime(path)),
                let etag = fields(value)?[3], etag != "-"
            else { return nil }
            return containsControlCharacter(etag) ? nil : String(etag)
        }
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

    /// An earlier release's `user.fastget.complete` text for `header` at `mtime`.
    private static func text(_ header: Journal, mtime: String) -> String? {
        guard let validator = header.validator, let guarded = validator.guardDescription else { return nil }
        return "\(header.length)\n\(guarded)\n\(mtime)\n\(validator)"
    }

    /// Whether the file at `path` is the download `header` describes, completed and untouched.
    static func marks(_ path: String, as header: Journal) -> Bool {
        guard FileSystem.size(path) == header.length, let mtime = FileSystem.modificationTime(path) else { return false }
        if let value = FileSystem.attribute(path, SidecarFiles.partMark) { return value == self.value(header, mtime: mtime) }
        guard FileSystem.attribute(path, origin) == header.url, let expected = text(header, mtime: mtime),
            let stored = FileSystem.attribute(path, complete)
        else { return false }
        // A mark of three lines comes from a release that recorded only what If-Range carries,
        // dropping a weak ETag: against a server that sends one now, it cannot tell versions apart.
        if stored == expected { return true }
        if let validator = header.validator, validator.etag != nil, validator.strongETag == nil { return false }
        return stored == expected.split(separator: "\n").prefix(3).joined(separator: "\n")
    }
}
