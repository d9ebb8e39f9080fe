import Foundation
import Synchronization

/// A ``BlobStore`` opened on first use, so commands that never touch the blobs (a listing
/// rendered from a snapshot, say) never open its index. Thread-safe.
public final class LazyBlobStore: BlobStoring {
    public let directory: URL
    private let open: @Sendable () throws -> BlobStore
    private let opened = Mutex<BlobStore?>(nil)

    /// - Parameter open: opens the cache (called at most once successfully).
    public init(directory: URL, open: @escaping @Sendable () throws -> BlobStore) {
        self.directory = directory
        self.open = open
    }

    /// The cache, opening it if needed.
    /// - Throws: ``StorageError``.
    public func cache() throws -> BlobStore {
        try opened.withLock { cache in
            if let cache { return cache }
            let created = try open()
            cache = created
            return created
        }
    }

    /// Whether the cache was opened.
    public var isOpen: Bool { opened.withLock { $0 != nil } }

    /// The blob for `key`, opening the cache first if needed (``BlobStore/data(for:)``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    public func data(for key: BlobKey) throws -> Data? { try cache().data(for: key) }
    /// Stores `data` under `key`, opening the cache first if needed (``BlobStore/store(_:for:)``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    public func store(_ data: Data, for key: BlobKey) throws { try cache().store(data, for: key) }
    /// Removes one entry, opening the cache first if needed (``BlobStore/remove(_:)``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    public func remove(_ key: BlobKey) throws { try cache().remove(key) }
    /// Entries and bytes, opening the cache first if needed (``BlobStore/stats()``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    public func stats() throws -> BlobStoreStats { try cache().stats() }
    /// Trims the cache, opening it first if needed (``BlobStore/trim(toBytes:)``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    @discardableResult public func trim(toBytes bytes: Int64) throws -> BlobTrimReport { try cache().trim(toBytes: bytes) }
    /// Removes everything, opening the cache first if needed (``BlobStore/removeAll()``).
    /// - Throws: ``StorageError`` when the cache cannot be opened (see ``cache()``), or what ``BlobStore``'s method throws.
    public func removeAll() throws { try cache().removeAll() }
    /// The path is computed without opening the cache.
    public func fileURL(for key: BlobKey) -> URL {
        BlobStore.fileURL(in: directory, bucket: key.bucket, name: BlobStore.fileName(key))
    }
}
