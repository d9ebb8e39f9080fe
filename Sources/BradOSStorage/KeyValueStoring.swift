import BradOSTerminal
import Foundation
/// A small per-profile key-value store: the terminal analogue of iOS `UserDefaults`
/// (flags such as the in-progress meal plan id, small cached documents).
public protocol KeyValueStoring: Sendable {
    /// The value for `key`, or `nil` when absent or not decodable as `T`.
    func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T?
    /// Stores `value` under `key`.
    /// - Throws: ``StorageError``.
    func set<T: Encodable>(_ value: T, forKey key: String) throws
    /// Removes `key`; absent keys are fine.
    /// - Throws: ``StorageError``.
    func removeValue(forKey key: String) throws
    /// Every key present.
    func keys() -> [String]
    /// Every key and value as they are now: one read and no lock, for reading several keys
    /// that belong together (a change made meanwhile is seen whole or not at all).
    func snapshot() -> KeyValueSnapshot
    /// Reads and changes several keys as one atomic step: no other writer (thread or
    /// process) interleaves, and the changes land together or not at all.
    /// - Throws: what `body` throws (nothing is written then), or ``StorageError``.
    func update<R>(_ body: (inout KeyValueSnapshot) throws -> R) throws -> R
}

/// The keys of a ``KeyValueStoring`` inside ``KeyValueStoring/update(_:)``.
public struct KeyValueSnapshot: Sendable {
    /// The values, once decoded or changed (`nil` while only ``source`` is held).
    private var decoded: [String: JSONValue]?
    /// The file the values were read from, while no key has changed: a value is decoded from
    /// it alone (the other keys are skipped, and no encoder runs).
    private var source: Data?

    /// Every key's value (decoded from the file when first asked).
    public var values: [String: JSONValue] {
        if let decoded { return decoded }
        guard let source else { return [:] }
        return (try? JSONCoding.decode([String: JSONValue].self, from: source)) ?? [:]
    }

    public init(values: [String: JSONValue]) { decoded = values }

    /// Whether no key was set or removed since the snapshot was read from a file.
    var isUntouched: Bool { decoded == nil && source != nil }

    /// A snapshot of a file's bytes (not a JSON object of values: every key reads as absent).
    init(source: Data) { self.source = source }

    /// Whether `key` is present.
    public func contains(_ key: String) -> Bool {
        if let decoded { return decoded[key] != nil }
        guard let source else { return false }
        return KeyedValue<JSONValue>.contains(key, in: source)
    }

    /// The whole object decoded as `T` in one pass over the file (a type whose keys are the
    /// store's keys, each decoded leniently): what reads several keys at once, where
    /// ``value(_:forKey:)`` would read the file once a key. `nil` when it does not decode.
    public func decode<T: Decodable>(_ type: T.Type) -> T? {
        if decoded == nil, let source { return try? JSONCoding.decode(T.self, from: source) }
        guard let data = try? JSONCoding.encode(values) else { return nil }
        return try? JSONCoding.decode(T.self, from: data)
    }

    /// ``decode(_:)`` with a fast reader first: while the snapshot is the file as read, `read`
    /// gets its bytes (``JSONReader``), and whatever it returns stands; when it returns `nil`
    /// (anything it does not take), JSONDecoder decodes `T` as ``decode(_:)`` does.
    public func decode<T: Decodable>(_ type: T.Type, reading read: (Data) -> T?) -> T? {
        if decoded == nil, let source, let value = read(source) { return value }
        return decode(type)
    }

    /// The value for `key`, or `nil` when absent or not decodable as `T`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        if decoded == nil, let source { return KeyedValue<T>.decode(key, from: source) }
        guard let raw = values[key], let data = try? JSONCoding.encode(raw) else { return nil }
        return try? JSONCoding.decode(T.self, from: data)
    }

    /// Sets `key` to `value`.
    /// - Throws: ``StorageError/coding(path:detail:)``.
    public mutating func set<T: Encodable>(_ value: T, forKey key: String) throws {
        do {
            var values = self.values
            values[key] = try JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(value))
            decoded = values
            source = nil
        } catch {
            throw StorageError.coding(path: key, detail: "\(error)")
        }
    }

    /// Removes `key`.
    public mutating func removeValue(forKey key: String) {
        var values = self.values
        values[key] = nil
        decoded = values
        source = nil
    }
}

extension KeyValueStoring {
    /// By default, read through ``update(_:)`` (which takes the lock).
    public func snapshot() -> KeyValueSnapshot { (try? update { $0 }) ?? KeyValueSnapshot(values: [:]) }
}

/// One key of a JSON object, decoded alone from the object's bytes (the other keys are skipped).
struct KeyedValue<T: Decodable>: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static var keyInfo: CodingUserInfoKey { CodingUserInfoKey(rawValue: "brados.key")! }

    let value: T?

    init(from decoder: any Decoder) throws {
        guard let key = decoder.userInfo[Self.keyInfo] as? String else { value = nil; return }
        value = try decoder.container(keyedBy: Key.self).decodeIfPresent(T.self, forKey: Key(stringValue: key))
    }

    /// Whether the JSON object `data` has `key`.
    static func contains(_ key: String, in data: Data) -> Bool {
        let decoder = JSONCoding.makeDecoder()
        decoder.userInfo[keyInfo] = key
        return (try? decoder.decode(KeyPresence.self, from: data))?.found ?? false
    }

    /// `key`'s value in the JSON object `data`, or `nil` when absent or not a `T`.
    static func decode(_ key: String, from data: Data) -> T? {
        let decoder = JSONCoding.makeDecoder()
        decoder.userInfo[keyInfo] = key
        return (try? decoder.decode(Self.self, from: data))?.value
    }
}

/// Whether a JSON object has the key in the decoder's user info (``KeyedValue/contains(_:in:)``).
struct KeyPresence: Decodable {
    let found: Bool
    init(from decoder: any Decoder) throws {
        let key = decoder.userInfo[KeyedValue<JSONValue>.keyInfo] as? String ?? ""
        found = try decoder.container(keyedBy: KeyedValue<JSONValue>.Key.self).contains(.init(stringValue: key))
    }
}
