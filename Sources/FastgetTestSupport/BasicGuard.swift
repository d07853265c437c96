import Foundation

/// HTTP Basic authentication in front of a test server's handler: a request without the
/// right `Authorization: Basic …` gets a 401 that offers Basic, as a server must (RFC 9110
/// §11.6.1) for a client that sends no credentials before it is asked.
public struct BasicGuard: Sendable {
    /// The `Authorization` value it accepts.
    public let expected: String

    public init(user: String, password: String) {
        expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Nil when `request` is authorized; else the 401 to answer.
    public func check(_ request: RecordedRequest) -> TestResponse? {
        guard request.header("Authorization") != expected else { return nil }
        return .status(401, body: "who?", fields: [("WWW-Authenticate", "Basic realm=\"fastget@test\"")])
    }
}
