import BradOSStorage
import BradOSTerminal
import Foundation

/// The config file: a flat JSON object of `key: value` strings in `config.json`.
///
/// Reads never fail on a missing file (empty config); writes are atomic and
/// serialized across processes with a lock next to the file.
public struct ConfigFile: Sendable, Equatable {
    public var values: [String: String]

    public init(values: [String: String] = [:]) { self.values = values }

    /// Loads the file.
    /// - Throws: ``ConfigError/unreadableConfigFile(path:detail:)`` when it exists but is not a JSON object of strings.
    public static func load(from url: URL) throws -> ConfigFile {
        guard let data = try AtomicFile.readIfPresent(url) else { return ConfigFile() }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) { return ConfigFile() }
        do {
            return ConfigFile(values: try JSONDecoder().decode([String: String].self, from: data))
        } catch {
            throw ConfigError.unreadableConfigFile(path: url.path, detail: "it is not a JSON object of strings")
        }
    }

    /// Applies `change` to the file on disk under the config lock and writes it back atomically.
    /// - Throws: ``StorageError`` or ``ConfigError``.
    @discardableResult
    public static func update(at url: URL, _ change: (inout ConfigFile) throws -> Void) throws -> ConfigFile {
        try FileLock.withExclusiveLock(at: url.appendingPathExtension("lock")) {
            var file = try load(from: url)
            try change(&file)
            try AtomicFile.write(try JSONCoding.encode(file.values), to: url)
            return file
        }
    }
}
