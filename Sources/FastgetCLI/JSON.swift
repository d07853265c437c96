/// A JSON value, written without Foundation.
indirect enum JSON {
    case string(String)
    case int(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    var text: String {
        switch self {
        case .string(let value): JSON.quoted(value)
        case .int(let value): String(value)
        case .number(let value): value.isFinite ? Format.fixed(value, 3) : "null"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): "{" + fields.map { JSON.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func optional(_ value: Int64?) -> JSON { value.map { .int($0) } ?? .null }
    static func optional(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
}
