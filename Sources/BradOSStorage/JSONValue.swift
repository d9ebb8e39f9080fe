/// Any JSON value, for stores that keep heterogeneous values.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes whichever JSON value is there: null, a Boolean, a number, a string, an array or an object.
    /// - Throws: `DecodingError` when it is none of them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// Encodes the value as it is; a whole number below 9e15 as an integer (`3`, not `3.0`).
    /// - Throws: `EncodingError` from `encoder` (a number that is not finite).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value):
            if value.rounded() == value, abs(value) < 9e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// The members of an object (`nil` for anything else).
    public var objectValue: [String: JSONValue]? { if case let .object(value) = self { value } else { nil } }
    /// A string's text (`nil` for anything else).
    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    /// A number (`nil` for anything else).
    public var doubleValue: Double? { if case let .number(value) = self { value } else { nil } }
}
