/// A request head as fastget sends it: `HEAD` or `GET`, origin-form target, HTTP/1.1.
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: HTTPURL
    /// Fields after `Host`, in order.
    package var fields: [(name: String, value: String)]

    package init(method: String, url: HTTPURL, fields: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.fields = fields
    }

    /// The head on the wire: request line, `Host`, the fields, empty line. Through a proxy the
    /// target is in absolute form and `proxyAuthorization` is added.
    package func serialized(throughProxy: Bool = false, proxyAuthorization: String? = nil) -> [UInt8] {
        let target = throughProxy ? url.withoutCredentials.description : url.target
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        if let proxyAuthorization { text += "Proxy-Authorization: \(proxyAuthorization)\r\n" }
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
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
