import BradOSTerminal
import Foundation
import Logging

/// One Codable value in one JSON file, written atomically.
///
/// An undecodable file (truncated, corrupt, an old format) is treated as missing:
/// it is removed and logged at debug level, and `load()` returns `nil`. Never a crash.
/// Thread-safe: each call reads or writes the file whole.
public struct JSONDocument<Value: Codable & Sendable>: Sendable {
    public let url: URL
    private let logger: Logger

    public init(url: URL, logger: Logger = Logger(label: "brados.storage")) {
        self.url = url
        self.logger = logger
    }

    /// The stored value, or `nil` when missing or undecodable (which removes the file).
    public func load() -> Value? {
        let data: Data
        do {
            guard let read = try AtomicFile.readIfPresent(url) else {
                logger.debug("cache miss", metadata: ["path": "\(url.path)"])
                return nil
            }
            data = read
        } catch {
            logger.debug("cache unreadable", metadata: ["path": "\(url.path)", "error": "\(error.logText)"])
            return nil
        }
        do {
            let value = try JSONCoding.decode(Value.self, from: data)
            logger.debug("cache hit", metadata: ["path": "\(url.path)", "age": "\(ageDescription())"])
            return value
        } catch {
            logger.debug("cache corrupt, removed", metadata: ["path": "\(url.path)", "bytes": "\(data.count)"])
            try? FileSystem.remove(url)
            return nil
        }
    }

    /// Writes the value atomically (0600).
    /// - Throws: ``StorageError``.
    public func save(_ value: Value) throws {
        let data: Data
        do { data = try JSONCoding.encode(value) } catch {
            throw StorageError.coding(path: url.path, detail: "\(error)")
        }
        try AtomicFile.write(data, to: url)
        logger.debug("cache write", metadata: ["path": "\(url.path)", "bytes": "\(data.count)"])
    }

    /// Deletes the file; a missing file is fine.
    /// - Throws: ``StorageError``.
    public func remove() throws {
        let existed = FileSystem.exists(url)
        try FileSystem.remove(url)
        if existed { logger.debug("cache invalidate", metadata: ["path": "\(url.path)"]) }
    }

    /// Size and modification time of the file, if present.
    public var attributes: (size: Int64, modified: Date)? { FileSystem.attributes(of: url) }

    private func ageDescription() -> String {
        guard let modified = attributes?.modified else { return "?" }
        return Format.age(Date().timeIntervalSince(modified))
    }
}

/// A cached value whose file records the version of its format.
public protocol VersionedDocument: Codable, Sendable {
    /// The version this build writes and reads.
    static var currentFormatVersion: Int { get }
    /// The version the file was written in.
    var formatVersion: Int { get }
}

/// The one versioned JSON cache file: a ``JSONDocument`` whose value of another format
/// version (an older or newer brados wrote it) reads as missing. It is left in place (another
/// brados sharing the profile may read it) until the next save replaces it. Thread-safe.
public struct VersionedJSONDocument<Value: VersionedDocument>: Sendable {
    public let document: JSONDocument<Value>
    public var url: URL { document.url }

    public init(url: URL, logger: Logger = Logger(label: "brados.storage")) {
        document = JSONDocument(url: url, logger: logger)
    }

    /// The stored value, or `nil` when missing, undecodable or of another version.
    public func load() -> Value? {
        guard let value = document.load(), value.formatVersion == Value.currentFormatVersion else { return nil }
        return value
    }

    /// - Throws: ``StorageError``.
    public func save(_ value: Value) throws { try document.save(value) }

    /// - Throws: ``StorageError``.
    public func remove() throws { try document.remove() }
}
