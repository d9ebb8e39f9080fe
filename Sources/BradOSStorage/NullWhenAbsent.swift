import Foundation

/// An optional that JSON writes as `null` when absent, never leaving its key out: the
/// `--json` contract (`contract/json/`) lists every key, nullable ones included, so a script
/// reads `.fix` and gets `null`, not a missing key. Decoding takes a missing key as `nil` too.
@propertyWrapper
public struct NullWhenAbsent<Value: Sendable>: Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension NullWhenAbsent: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullWhenAbsent: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension NullWhenAbsent: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    /// A key left out reads as `nil` (a document written before the key was always there).
    public func decode<Value: Decodable>(_ type: NullWhenAbsent<Value>.Type, forKey key: Key) throws -> NullWhenAbsent<Value> {
        NullWhenAbsent(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
