// Test code, never in the product: the unit tests import the library to replay the corpus;
// Tests/Fuzz/run.sh compiles this file into the library's own module (FASTGET_FUZZ_DRIVER).
#if !FASTGET_FUZZ_DRIVER
@testable import Fastget
#endif

/// Entry points for fuzzing the parsers that read bytes from the network or the disk.
///
/// Each takes arbitrary bytes, runs one parser over them and checks properties that must hold for
/// every input (the same answer whole or split, round trips, bounds). It returns nil when they
/// hold and a description of the broken property otherwise. The libFuzzer driver in `Tests/Fuzz`
/// turns a description into a crash; the unit tests replay the kept corpus through the same code.
enum FuzzTarget: String, CaseIterable, Sendable {
    case headParser = "head"
    case chunkedDecoder = "chunked"
    case contentRange = "content-range"
    case url = "url"
    case journal = "journal"
    case configuration = "config"
    case netrc = "netrc"
    case aria2 = "aria2"
    case axel = "axel"
    case cookieFile = "cookie-file"
    case setCookie = "set-cookie"
    case authenticate = "authenticate"

    func run(_ input: UnsafeRawBufferPointer) -> String? {
        switch self {
        case .headParser: FuzzTarget.headParser(input)
        case .chunkedDecoder: FuzzTarget.chunkedDecoder(input)
        case .contentRange: FuzzTarget.contentRange(input)
        case .url: FuzzTarget.url(input)
        case .journal: FuzzTarget.journal(input)
        case .configuration: FuzzTarget.lineEnds(input) { ConfigurationText($0) }
        case .netrc: FuzzTarget.lineEnds(input) { Netrc($0) }
        case .aria2: FuzzTarget.foreignState(Array(input), declaredLength: FuzzTarget.aria2Length, Aria2ControlFile.completeRanges)
        case .axel: FuzzTarget.foreignState(Array(input), declaredLength: FuzzTarget.axelLength, AxelStateFile.completeRanges)
        case .cookieFile: FuzzTarget.lineEnds(input) { Cookie.netscapeFile($0) } ?? FuzzTarget.cookieFile(input)
        case .setCookie: FuzzTarget.setCookie(input)
        case .authenticate: FuzzTarget.authenticate(input)
        }
    }

    func run(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes { run($0) } }

    // MARK: - Targets

    /// Fed whole, or in two pieces split where the first byte says, the parser gives one answer,
    /// and never claims more bytes than it was given.
    private static func headParser(_ input: UnsafeRawBufferPointer) -> String? {
        typealias Outcome = Result<(head: ResponseHead, consumed: Int)?, HTTPParseError>
        func parse(_ pieces: [UnsafeRawBufferPointer]) -> Outcome {
            var parser = HeadParser()
            var offset = 0
            for piece in pieces {
                do throws(HTTPParseError) {
                    if let (head, consumed) = try parser.feed(piece) { return .success((head, offset + consumed)) }
                } catch {
                    return .failure(error)
                }
                offset += piece.count
            }
            return .success(nil)
        }
        let whole = parse([input])
        let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
        let pieces = parse([UnsafeRawBufferPointer(rebasing: input[..<split]), UnsafeRawBufferPointer(rebasing: input[split...])])
        switch (whole, pieces) {
        case (.success(let a), .success(let b)):
            if a?.head != b?.head || a?.consumed != b?.consumed { return "head differs when split at \(split)" }
            if let consumed = a?.consumed, consumed > input.count || consumed < 1 { return "consumed \(consumed) of \(input.count)" }
            if let head = a?.head, !(100...999).contains(head.status) { return "status \(head.status)" }
        case (.failure(let a), .failure(let b)):
            if a != b { return "errors differ when split at \(split): \(a) / \(b)" }
        default:
            return "outcome differs when split at \(split)"
        }
        return nil
    }

    /// In place or byte by byte into another buffer, the decoder gives the same data, the same
    /// consumed count and the same error; it never produces more than it consumed.
    private static func chunkedDecoder(_ input: UnsafeRawBufferPointer) -> String? {
        guard !input.isEmpty else { return nil }
        var inPlace = Array(input)
        var decoder = ChunkedDecoder()
        var bulk: Result<(consumed: Int, produced: Int), HTTPParseError> = .success((0, 0))
        inPlace.withUnsafeMutableBytes { buffer in
            do throws(HTTPParseError) {
                bulk = .success(try decoder.decode(UnsafeRawBufferPointer(buffer), into: buffer.baseAddress!))
            } catch {
                bulk = .failure(error)
            }
        }

        var single = ChunkedDecoder()
        var data: [UInt8] = []
        var consumed = 0
        var scratch: UInt8 = 0
        var stepped: HTTPParseError?
        while consumed < input.count && !single.isDone {
            do throws(HTTPParseError) {
                let piece = UnsafeRawBufferPointer(rebasing: input[consumed..<(consumed + 1)])
                let result = try single.decode(piece, into: &scratch)
                if result.produced == 1 { data.append(scratch) }
                if result.consumed != 1 { return "consumed \(result.consumed) of a single byte at \(consumed)" }
                consumed += 1
            } catch {
                stepped = error
                break
            }
        }
        switch bulk {
        case .success(let result):
            if stepped != nil { return "byte by byte failed, in bulk did not" }
            if result.consumed != consumed { return "consumed \(result.consumed) in bulk, \(consumed) byte by byte" }
            if result.produced > result.consumed { return "produced \(result.produced) from \(result.consumed)" }
            if Array(inPlace[..<result.produced]) != data { return "data differs" }
            if decoder.isDone != single.isDone { return "end of body differs" }
        case .failure(let error):
            if stepped != error { return "bulk error \(error), byte by byte \(String(describing: stepped))" }
        }
        return nil
    }

    /// A parsed range is ordered and inside the complete length, and its canonical form parses
    /// back to the same value.
    private static func contentRange(_ input: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: input, as: UTF8.self)
        guard let range = try? ContentRange.parse(text) else { return nil }
        if let first = range.first, let last = range.last {
            if first < 0 || first > last { return "bounds \(first)-\(last)" }
            if let complete = range.completeLength, last >= complete { return "last \(last) ≥ complete \(complete)" }
        } else if range.first != nil || range.last != nil || range.completeLength == nil {
            return "half a range"
        }
        let bounds = range.first.map { "\($0)-\(range.last!)" } ?? "*"
        let canonical = "bytes \(bounds)/\(range.completeLength.map { String($0) } ?? "*")"
        if (try? ContentRange.parse(canonical)) != range { return "'\(canonical)' does not parse back" }
        return nil
    }

    /// A parsed URL has a sane port and target, prints as a URL that parses back to itself, and
    /// resolving any reference against it either fails cleanly or gives another sane URL that
    /// round-trips too.
    private static func url(_ input: UnsafeRawBufferPointer) -> String? {
        let newline = input.firstIndex(of: 0x0A) ?? input.count
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: input[..<newline]), as: UTF8.self)
        let reference = newline < input.count ? String(decoding: UnsafeRawBufferPointer(rebasing: input[(newline + 1)...]), as: UTF8.self) : ""
        guard let url = try? HTTPURL(text) else { return nil }
        if let problem = check(url) { return problem }
        guard let again = try? HTTPURL(url.description) else { return "'\(url.description)' does not parse" }
        if again != url.withoutCredentials { return "'\(url.description)' parses to '\(again.description)'" }
        if let resolved = try? url.resolving(reference) {
            if let problem = check(resolved) { return "resolved: " + problem }
            guard let again = try? HTTPURL(resolved.description) else { return "resolved '\(resolved)' does not parse" }
            // An absolute Location may carry its own user info, which the printed form omits.
            if again != resolved.withoutCredentials { return "resolved '\(resolved)' parses to '\(again)'" }
        }
        return nil
    }

    private static func check(_ url: HTTPURL) -> String? {
        if !(1...65535).contains(url.port) { return "port \(url.port)" }
        if !url.target.hasPrefix("/") { return "target '\(url.target)'" }
        if url.host.isEmpty { return "empty host" }
        if url.target.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) { return "unsendable byte in target" }
        // A fragment is never sent: kept in the target it would be, and lost on the next parse.
        if url.target.utf8.contains(UInt8(ascii: "#")) { return "fragment in target '\(url.target)'" }
        if url.host.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "/") }) { return "bad host" }
        return nil
    }

    /// A journal that decodes tiles its file and encodes back to the same bytes (one of an
    /// earlier version, to a journal that decodes the same). The input is
    /// tried as a whole file and, so the fuzzer gets past the checksum, as a payload wrapped in
    /// a valid header and checksum.
    private static func journal(_ input: UnsafeRawBufferPointer) -> String? {
        if let problem = journalRoundTrip(Array(input)) { return problem }
        return journalRoundTrip(Journal.framed(input))
    }

    private static func journalRoundTrip(_ bytes: [UInt8]) -> String? {
        guard let journal = try? Journal.decode(bytes) else { return nil }
        if (try? journal.checkTiling()) == nil { return "decoded journal does not tile" }
        let current = bytes[8] == UInt8(truncatingIfNeeded: Journal.version) && bytes[9] == 0
        if current ? journal.encoded() != bytes : (try? Journal.decode(journal.encoded())) != journal { return "re-encoding differs" }
        return nil
    }

    /// Input files read the same with CRLF line ends as with LF ones: the input with a CR put
    /// before every LF (a CR already there made an `x` first, so that the LF form has none)
    /// parses exactly as the LF form does.
    private static func lineEnds<Parsed: Equatable>(_ input: UnsafeRawBufferPointer, _ parse: (String) -> Parsed) -> String? {
        var lf = Array(input)
        for index in lf.indices.dropLast() where lf[index] == 0x0D && lf[index + 1] == 0x0A { lf[index] = UInt8(ascii: "x") }
        let crlf = lf.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] }
        let (lfText, crlfText) = (String(decoding: lf, as: UTF8.self), String(decoding: crlf, as: UTF8.self))
        let lines = textLines(lfText)
        if lines.count != lf.filter({ $0 == 0x0A }).count + 1 { return "\(lines.count) lines" }
        if textLines(crlfText) != lines { return "CRLF lines differ" }
        return parse(crlfText) == parse(lfText) ? nil : "CRLF parses differently"
    }

    /// A Netscape cookie file reads back, once written, as the same cookies.
    private static func cookieFile(_ input: UnsafeRawBufferPointer) -> String? {
        let cookies = Cookie.netscapeFile(String(decoding: input, as: UTF8.self))
        return Cookie.netscapeFile(Cookie.netscapeText(cookies)) == cookies ? nil : "the written file reads differently"
    }

    /// Each line, as a `Set-Cookie` answer from `www.example.com` (over https when the first
    /// byte is odd), sets nothing or a cookie for that host or one of its parent domains, for a
    /// path, over a scheme, that a request can match; a cookie file keeps it whole, and the
    /// `Cookie` field it makes holds no control character.
    private static func setCookie(_ input: UnsafeRawBufferPointer) -> String? {
        let now = 1_795_255_200
        let secure = input.first.map { $0 & 1 == 1 } ?? false
        guard let url = try? HTTPURL(secure ? "https://www.example.com/dir/page" : "http://www.example.com/dir/page") else { return "url" }
        for line in textLines(String(decoding: input, as: UTF8.self)) {
            guard let cookie = Cookie(setCookie: String(line), from: url, now: now) else { continue }
            if cookie.name.isEmpty || containsControlCharacter(cookie.name + cookie.value) { return "name or value \(cookie)" }
            if !Cookie.domainMatches(url.host, cookie.domain) || !cookie.domain.contains(".") { return "domain \(cookie.domain)" }
            // Bytes, as the parser and path matching go: "/" and a combining mark are one Character.
            if cookie.path.utf8.first != UInt8(ascii: "/") || (cookie.secure && !secure) { return "path or scheme \(cookie)" }
            if cookie.path.utf8.count > Cookie.maximumAttributeSize { return "path longer than an attribute may be \(cookie)" }
            guard !cookie.isExpired(at: now) else { continue }
            if Cookie.netscapeFile(Cookie.netscapeText([cookie])) != [cookie] { return "cookie file changes \(cookie)" }
            let jar = CookieJar([cookie])
            if let field = jar.header(for: url, now: now), containsControlCharacter(field) { return "Cookie field \(field)" }
        }
        return nil
    }

    /// `WWW-Authenticate` lines (one per input line) parse without a trap, and the answer to a
    /// Digest challenge among them reads back, in the same syntax, with the challenge's realm,
    /// nonce and opaque and the user as given: its quoting holds for any bytes.
    private static func authenticate(_ input: UnsafeRawBufferPointer) -> String? {
        let lines = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let digest = DigestChallenge.best(in: AuthChallenge.parse(lines)) else { return nil }
        let user = "a \"user\" \\ , x=y"
        guard let value = digest.authorization(user: user, password: "p", method: "GET", uri: "/", count: 1, cnonce: "c"),
            let answer = AuthChallenge.parse([value]).first, answer.scheme == "digest"
        else { return "no readable answer" }
        let sent = [("username", user), ("realm", digest.realm), ("nonce", digest.nonce), ("opaque", digest.opaque)]
        for case (let name, let expected?) in sent where answer.parameter(name) != expected {
            return "\(name) reads back as \(answer.parameter(name) ?? "nothing"), not \(expected)"
        }
        return nil
    }

    /// A state file read for the length it declares (so the fuzzer gets past that check) and
    /// for another: either refused, or its ranges are in order, disjoint, not touching, not
    /// empty and inside the file.
    private static func foreignState(
        _ bytes: [UInt8], declaredLength: ([UInt8]) -> Int64?,
        _ parse: ([UInt8], Int64) throws(ForeignStateError) -> [ByteRange]
    ) -> String? {
        for length in [declaredLength(bytes), 1 << 20].compactMap({ $0 }) where length >= 0 {
            guard let ranges = try? parse(bytes, length) else { continue }
            var end: Int64 = -1
            for range in ranges {
                if range.start <= end || range.count <= 0 || range.end > length { return "ranges \(ranges) for \(length) bytes" }
                end = range.end
            }
        }
        return nil
    }

    /// The total length an aria2 control file declares, when its header is there.
    private static func aria2Length(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 2 else { return nil }
        var reader = StateFileReader(bytes, bigEndian: bytes[1] == 1)
        guard (try? reader.skip(6, "")) != nil, let hash = try? reader.uint32(""), hash <= 20, (try? reader.skip(Int(hash) + 4, "")) != nil,
            let total = try? reader.uint64("")
        else { return nil }
        return Int64(truncatingIfNeeded: total)
    }

    /// The length an axel state file's last chunk ends at.
    private static func axelLength(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 8 else { return nil }
        var reader = StateFileReader(Array(bytes.suffix(8)), bigEndian: false)
        return (try? reader.uint64("")).map { Int64(truncatingIfNeeded: $0) }
    }
}
