extension Checksum {
    /// The whole file's digest as the server announces it, or nil: `Repr-Digest` (RFC 9530, a
    /// structured dictionary such as `sha-256=:base64:`) before `Digest` (RFC 3230, such as
    /// `SHA-256=base64`), and within each the strongest algorithm fastget computes (sha-512,
    /// sha-256, sha-1, md5). Both describe the whole representation, not the bytes of one
    /// answer (that is `Content-Digest`, which is not used). A value that does not decode, or
    /// decodes to the wrong length, is skipped.
    package static func announced(reprDigest: [String], digest: [String]) -> (checksum: Checksum, field: String)? {
        if let checksum = strongest(reprDigest.flatMap { members($0, byteSequences: true) }) { return (checksum, "Repr-Digest") }
        if let checksum = strongest(digest.flatMap { members($0, byteSequences: false) }) { return (checksum, "Digest") }
        return nil
    }

    /// The strongest of `members` fastget can check.
    private static func strongest(_ members: [(name: String, bytes: [UInt8])]) -> Checksum? {
        let order: [(names: [String], algorithm: Algorithm)] = [
            (["sha-512"], .sha512), (["sha-256"], .sha256), (["sha", "sha-1"], .sha1), (["md5"], .md5),
        ]
        for (names, algorithm) in order {
            for member in members where names.contains(member.name) {
                if let checksum = Checksum(algorithm, bytes: member.bytes) { return checksum }
            }
        }
        return nil
    }

    /// `name=value` members of one field line, names lower-cased. A structured field's values
    /// are byte sequences (`:base64:`) and may carry parameters (`;…`), which are ignored;
    /// RFC 3230's values are bare base64.
    private static func members(_ line: String, byteSequences: Bool) -> [(name: String, bytes: [UInt8])] {
        line.split(separator: ",").compactMap { member in
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let name = parts[0].trimmingSpaces().lowercased()
            var value = parts[1].trimmingSpaces()
            if byteSequences {
                if let parameters = value.firstIndex(of: ";") { value = value[..<parameters].trimmingSpaces() }
                guard value.count >= 2, value.first == ":", value.last == ":" else { return nil }
                value = value.dropFirst().dropLast()
            }
            return Base64.decode(value).map { (name, $0) }
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
