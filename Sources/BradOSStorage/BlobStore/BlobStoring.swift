import Foundation

/// A size-capped, least-recently-used cache of blobs (artwork) on disk, shared safely by
/// concurrent `brados` processes. ``BlobStore`` is the default implementation.
public protocol BlobStoring: Sendable {
    /// The blob for `key`, or `nil` when absent or corrupt (a corrupt entry is discarded).
    /// Reading counts as an access for the LRU order.
    /// - Throws: ``StorageError`` when the index cannot be read.
    func data(for key: BlobKey) throws -> Data?
    /// Stores `data` under `key`, then trims the cache below its capacity if it went over.
    /// - Throws: ``StorageError``.
    func store(_ data: Data, for key: BlobKey) throws
    /// Removes one entry.
    /// - Throws: ``StorageError``.
    func remove(_ key: BlobKey) throws
    /// Entries and bytes, in total and per bucket.
    /// - Throws: ``StorageError``.
    func stats() throws -> BlobStoreStats
    /// Evicts least recently used entries until at most `bytes` remain, and removes files the
    /// index does not know (left by a crash).
    /// - Throws: ``StorageError``.
    @discardableResult func trim(toBytes bytes: Int64) throws -> BlobTrimReport
    /// Removes everything.
    /// - Throws: ``StorageError``.
    func removeAll() throws
    /// Where the blob for `key` lives on disk (whether or not it is cached).
    func fileURL(for key: BlobKey) -> URL
    /// Whether `key` is cached, from the index and the file's size alone: nothing is read or
    /// verified (``data(for:)`` does that when the blob is used), and it is no access.
    func contains(_ key: BlobKey) -> Bool
}

extension BlobStoring {
    public func contains(_ key: BlobKey) -> Bool { ((try? data(for: key)) ?? nil) != nil }
}

/// A cache key: the bucket (e.g. `1024`) and an identifier that names the content
/// (e.g. rating key + artwork path + size). The file name is the identifier's SHA-256.
public struct BlobKey: Hashable, Sendable, CustomStringConvertible {
    public var bucket: String
    public var identifier: String

    /// - Precondition: `bucket` is a plain folder name (letters, digits, `-`, `_`); buckets are
    ///   chosen by code, never by input.
    public init(bucket: String, identifier: String) {
        precondition(!bucket.isEmpty && bucket.utf8.allSatisfy { $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) },
                     "invalid blob bucket name")
        self.bucket = bucket
        self.identifier = identifier
    }

    public var description: String { "\(bucket)/\(identifier)" }
}

public struct BlobStoreStats: Sendable, Codable, Equatable {
    public struct Bucket: Sendable, Codable, Equatable {
        public var bucket: String
        public var entries: Int
        public var bytes: Int64
    }
    public var entries: Int
    public var bytes: Int64
    public var capacity: Int64
    public var buckets: [Bucket]
}

public struct BlobTrimReport: Sendable, Codable, Equatable {
    public var evictedEntries: Int
    public var evictedBytes: Int64
    public var orphanFilesRemoved: Int
    public var remainingBytes: Int64
}
