import BradOSTerminal
import Foundation
import Logging

/// The default ``KeyValueStoring``: one JSON object in a file (`defaults.json` in the
/// profile's data folder). Writes take a cross-process lock, re-read, change one key and
/// write atomically, so concurrent `brados` processes never lose each other's keys.
/// A corrupt file reads as empty (and is replaced on the next write).
public struct KeyValueStore: KeyValueStoring {
    public let url: URL
    private let logger: Logger

    public init(url: URL, logger: Logger = Logger(label: "brados.storage")) {
        self.url = url
        self.logger = logger
    }

    private var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock") }

    /// The file's bytes, each value decoded when asked for (a file that is not a JSON object
    /// of values reads as empty, key by key).
    private func readSnapshot() throws -> KeyValueSnapshot {
        guard let data = try AtomicFile.readIfPresent(url) else { return KeyValueSnapshot(values: [:]) }
        return KeyValueSnapshot(source: data)
    }

    public func value<T: Decodable>(_ type: T.Type, forKey key: String) -> T? {
        guard let data = try? AtomicFile.readIfPresent(url) else { return nil }
        return KeyedValue<T>.decode(key, from: data)
    }

    /// Stores `value` under `key`: under the file lock, re-reads the file, changes that key and writes it atomically.
    /// - Throws: ``StorageError/coding(path:detail:)`` when `value` does not encode; ``StorageError/io(operation:path:errno:)``
    ///   when the file cannot be locked, read or written.
    public func set<T: Encodable>(_ value: T, forKey key: String) throws {
        let encoded: JSONValue
        do {
            encoded = try JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(value))
        } catch {
            throw StorageError.coding(path: url.path, detail: "\(error)")
        }
        try mutate { $0[key] = encoded }
    }

    /// Removes `key`; an absent key writes nothing.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` when the file cannot be locked, read or written.
    public func removeValue(forKey key: String) throws {
        guard snapshot().contains(key) else { return }
        try mutate { $0[key] = nil }
    }

    public func keys() -> [String] { snapshot().values.keys.sorted() }

    /// One read of the file, no lock (writes replace it atomically, so a read sees one whole version).
    public func snapshot() -> KeyValueSnapshot { (try? readSnapshot()) ?? KeyValueSnapshot(values: [:]) }

    /// Runs `body` on the values under the file lock, and writes them back atomically if it changed any.
    /// - Throws: what `body` throws (nothing is written then), or ``StorageError`` when the file cannot be locked, read or
    ///   written.
    public func update<R>(_ body: (inout KeyValueSnapshot) throws -> R) throws -> R {
        try FileLock.withExclusiveLock(at: lockURL) {
            // An I/O error is thrown here, so values that could not be read are never replaced.
            let original = try readSnapshot()
            var snapshot = original
            let result = try body(&snapshot)
            // Untouched, it still holds the file's bytes: nothing to compare or decode.
            if !snapshot.isUntouched, snapshot.values != original.values {
                try AtomicFile.write(try JSONCoding.encode(snapshot.values), to: url)
            }
            return result
        }
    }

    private func mutate(_ change: (inout [String: JSONValue]) -> Void) throws {
        try update { snapshot in
            var values = snapshot.values
            change(&values)
            snapshot = KeyValueSnapshot(values: values)
        }
    }
}
