/// A request head as fastget sends it: `HEAD` or `GET`, origin-form target, HTTP/1.1.
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: HTTPURL
    /// The `Host` value when it is not the URL's authority (the user's own, `-H 'Host: …'`).
    package var host: String?
    /// Fields after `Host`, in order.
    package var fields: [(name: String, value: String)]
    /// Whether it may go only to public addresses (to a mirror a public server named; see
    /// `Connector.connect`).
    package var publicOnly = false

    package init(method: String, url: HTTPURL, host: String? = nil, fields: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.host = host
        self.fields = fields
    }

    /// The head on the wire: request line, `Host`, the fields, empty line. Through a proxy the
    /// target is in absolute form and `proxyAuthorization` is added.
    ///
    /// - Throws: `UnsendableField` for a CR, LF or NUL in a value (or in the target): whatever
    ///   its source, it would end the field and let the rest pass for fields or a request of
    ///   its own. The options are checked long before; this is the last line.
    package func serialized(throughProxy: Bool = false, proxyAuthorization: String? = nil) throws(UnsendableField) -> [UInt8] {
        let target = throughProxy ? url.withoutCredentials.description : url.target
        if target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { throw UnsendableField(name: "request target") }
        var head: [UInt8] = []
        head.reserveCapacity(256)
        head += method.utf8
        head.append(0x20)
        head += target.utf8
        head += " HTTP/1.1\r\n".utf8
        var all = [(name: "Host", value: host ?? url.authority)]
        if let proxyAuthorization { all.append(("Proxy-Authorization", proxyAuthorization)) }
        all += fields
        for field in all {
            if containsLineBreakOrNUL(field.name) || containsLineBreakOrNUL(field.value) { throw UnsendableField(name: field.name) }
            head += field.name.utf8
            head += ": ".utf8
            head += field.value.utf8
            head += "\r\n".utf8
        }
        head += "\r\n".utf8
        return head
    }
}

/// A request field (or target) that holds a CR, LF or NUL byte: never sent.
package struct UnsendableField: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field's name.
    package let name: String
    package var description: String { "refusing to send the \(name): it holds a line break or NUL byte" }
}

/// Whether `text` holds a byte that must never reach a request head: CR or LF (they would end
/// the field, and what follows would be read as another field or another request) or NUL
/// (servers cut the value there, or reject the request).
package func containsLineBreakOrNUL(_ text: some StringProtocol) -> Bool {
    text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
}

/// Whether `text` holds a control character other than HTAB (RFC 9110 5.5: a field value has
/// none): refused in every field a user gives, line breaks and NUL included.
package func containsControlCharacter(_ text: some StringProtocol) -> Bool {
    text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
}

/// The value of an `Authorization` or `Proxy-Authorization` field for HTTP Basic credentials
/// (RFC 7617): `Basic ` and base64 of `user:password`.
package func basicAuthorization(user: String, password: String?) -> String {
    "Basic " + base64Encoded(Array(user.utf8) + [UInt8(ascii: ":")] + Array((password ?? "").utf8))
}

/// Base64 (RFC 4648) for `Authorization: Basic`.
package func base64Encoded(_ bytes: some Collection<UInt8>) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    let input = Array(bytes)
    var output: [UInt8] = []
    output.reserveCapacity((input.count + 2) / 3 * 4)
    var index = 0
    while index < input.count {
        let a = UInt32(input[index])
        let b = index + 1 < input.count ? UInt32(input[index + 1]) : 0
        let c = index + 2 < input.count ? UInt32(input[index + 2]) : 0
        let triple = a << 16 | b << 8 | c
        output.append(alphabet[Int(triple >> 18 & 63)])
        output.append(alphabet[Int(triple >> 12 & 63)])
        output.append(index + 1 < input.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
        output.append(index + 2 < input.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
        index += 3
    }
    return String(decoding: output, as: UTF8.self)
}
