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
    public private(set) var values: [String: JSONValue]

    public init(values: [String: JSONValue]) { self.values = values }

    /// The value for `key`, or `nil` when absent or not decodable as `T`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let raw = values[key], let data = try? JSONCoding.encode(raw) else { return nil }
        return try? JSONCoding.decode(T.self, from: data)
    }

    /// Sets `key` to `value`.
    /// - Throws: ``StorageError/coding(path:detail:)``.
    public mutating func set<T: Encodable>(_ value: T, forKey key: String) throws {
        do {
            values[key] = try JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(value))
        } catch {
            throw StorageError.coding(path: key, detail: "\(error)")
        }
    }

    /// Removes `key`.
    public mutating func removeValue(forKey key: String) { values[key] = nil }
}

extension KeyValueStoring {
    /// By default, read through ``update(_:)`` (which takes the lock).
    public func snapshot() -> KeyValueSnapshot { (try? update { $0 }) ?? KeyValueSnapshot(values: [:]) }
}
