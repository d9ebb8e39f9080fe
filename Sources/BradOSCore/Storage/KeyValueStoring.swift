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
}
