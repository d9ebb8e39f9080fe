import Foundation
import GRDB
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The default ``BlobStoring``: blob files in `<directory>/<bucket>/<sha256(identifier)>`,
/// an SQLite index (`index.sqlite`, WAL) of size, checksum and last access, and an in-memory
/// LRU for the life of the process.
///
/// - The capacity covers all buckets together. A write that passes it evicts the least
///   recently *accessed* entries down to `capacity × trimRatio` in the same transaction, so
///   after any write the total is at or below the capacity, whichever process wrote.
/// - The index keeps a running total with triggers, so a write never scans the table.
/// - Concurrent processes are safe: every index change is an SQLite transaction; blob files
///   are replaced atomically; a file that vanished under a reader is a miss.
/// - A blob whose size or checksum does not match, or that is not an image, is discarded.
///
/// Thread-safe.
public final class BlobStore: BlobStoring {
    public let directory: URL
    public let configuration: BlobStoreConfiguration
    let database: DatabasePool
    let memory: MemoryLRU
    let touches = PendingTouches()
    let spares: SparePool
    let now: @Sendable () -> Date
    let logger: Logger

    /// Opens (creating) the cache in `directory`.
    /// - Throws: ``StorageError``.
    public init(directory: URL, configuration: BlobStoreConfiguration = BlobStoreConfiguration(),
                now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "brados.blobcache")) throws {
        self.directory = directory
        self.configuration = configuration
        self.now = now
        self.logger = logger
        memory = MemoryLRU(capacity: configuration.memoryCapacity)
        spares = SparePool(directory: directory.appendingPathComponent(".spare", isDirectory: true))
        let index = directory.appendingPathComponent("index.sqlite")
        database = try Self.wrap(index.path) { try SQLiteStore.open(index, contents: .fetchable, migrator: Self.migrator) }
        // A lowered cap is enforced at once, not at the next write.
        if let total = try? database.read({ try Int64.fetchOne($0, sql: "SELECT bytes FROM total WHERE id = 1") }), total > configuration.capacity {
            try trim(toBytes: Int64(Double(configuration.capacity) * configuration.trimRatio))
        }
    }

    // MARK: - BlobStoring

    public func contains(_ key: BlobKey) -> Bool {
        if memory.get(key) != nil { return true }
        let name = Self.fileName(key)
        guard let size = try? wrap({ try database.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT size FROM blob WHERE bucket = ? AND name = ?"), arguments: [key.bucket, name])
        } }) else { return false }
        // stat(2), not FileManager's attributes (which look up the owner's name in /etc/passwd).
        var info = stat()
        return stat(fileURL(key, name: name).path, &info) == 0 && Int64(info.st_size) == size
    }

    /// The blob for `key`, or `nil` when absent or corrupt (a corrupt entry is discarded). Reading counts as an access.
    /// - Throws: ``StorageError`` when the index cannot be read, or a corrupt entry or the access times cannot be written.
    public func data(for key: BlobKey) throws -> Data? {
        let name = Self.fileName(key)
        if let cached = memory.get(key) {
            if touches.record(key.bucket, name, at: now().timeIntervalSince1970) >= 256 { try flushAccessTimes() }
            return cached
        }
        guard let row = try wrap({ try database.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT size, checksum FROM blob WHERE bucket = ? AND name = ?"), arguments: [key.bucket, name])
        } }) else {
            logger.debug("blob cache miss", metadata: ["key": "\(key)"])
            return nil
        }
        let expectedSize: Int64 = row["size"]
        let expectedChecksum: String = row["checksum"]
        let url = fileURL(key, name: name)
        guard let data = try? AtomicFile.readIfPresent(url) else {
            try discard(key, name: name, reason: "file missing")
            return nil
        }
        if Int64(data.count) != expectedSize
            || (configuration.verifyChecksums && Self.checksum(data) != expectedChecksum)
            || (configuration.requireImageData && !BlobStoreConfiguration.looksLikeImage(data)) {
            try discard(key, name: name, reason: "size or checksum mismatch")
            return nil
        }
        if touches.record(key.bucket, name, at: now().timeIntervalSince1970) >= 256 { try flushAccessTimes() }
        memory.set(key, data)
        logger.debug("blob cache hit", metadata: ["key": "\(key)", "bytes": "\(data.count)"])
        return data
    }

    /// Stores `data` under `key` (not at all when it is larger than the whole capacity), evicting least recently
    /// accessed entries in the same transaction when the cache went over its capacity.
    /// - Throws: ``StorageError/coding(path:detail:)`` when an image is required and `data` is not one;
    ///   ``StorageError/io(operation:path:errno:)`` when the file cannot be written; ``StorageError`` for the index.
    public func store(_ data: Data, for key: BlobKey) throws {
        if configuration.requireImageData, !BlobStoreConfiguration.looksLikeImage(data) {
            throw StorageError.coding(path: key.description, detail: "the data is not an image")
        }
        guard Int64(data.count) <= configuration.capacity else {
            logger.debug("blob larger than the cache capacity; not cached", metadata: ["key": "\(key)", "bytes": "\(data.count)"])
            return
        }
        let name = Self.fileName(key)
        let final = fileURL(key, name: name)
        let temporary = try AtomicFile.prepareTemporary(data, for: final, reusing: spares.take())
        let checksum = Self.checksum(data)
        let accessed = now().timeIntervalSince1970
        let capacity = configuration.capacity
        let target = Int64(Double(capacity) * configuration.trimRatio)
        let evicted: [(bucket: String, name: String, size: Int64)]
        do {
            // The file move, the index row and the evictions (with their unlinks) happen under
            // the write lock, so no other process sees the files and the index disagree.
            evicted = try wrap {
                try database.write { db in
                    try Self.apply(touches.drain(), db)
                    guard rename(temporary.path, final.path) == 0 else {
                        throw StorageError.io(operation: "replace", path: final.path, errno: errno)
                    }
                    try db.cachedStatement(sql: """
                        INSERT INTO blob (bucket, name, identifier, size, checksum, accessedAt) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(bucket, name) DO UPDATE SET size = excluded.size, checksum = excluded.checksum, accessedAt = excluded.accessedAt
                        """).execute(arguments: [key.bucket, name, key.identifier, data.count, checksum, accessed])
                    let total = try Int64.fetchOne(db, sql: "SELECT bytes FROM total WHERE id = 1") ?? 0
                    guard total > capacity else { return [] }
                    let victims = try Self.evict(db, down: total, to: target, sparing: (key.bucket, name))
                    for victim in victims where Self.isSafe(bucket: victim.bucket, name: victim.name) {
                        spares.recycle(fileURL(bucket: victim.bucket, name: victim.name), name: victim.name)
                    }
                    return victims
                }
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        memory.set(key, data)
        logger.debug("blob cache write", metadata: ["key": "\(key)", "bytes": "\(data.count)"])
        if !evicted.isEmpty {
            logger.debug("blob cache evict", metadata: ["entries": "\(evicted.count)", "bytes": "\(evicted.reduce(0) { $0 + $1.size })"])
        }
    }

    /// Removes one entry: its index row and its file.
    /// - Throws: ``StorageError`` when the index cannot be written.
    public func remove(_ key: BlobKey) throws {
        let name = Self.fileName(key)
        try wrap { try database.write { db in
            try db.execute(sql: "DELETE FROM blob WHERE bucket = ? AND name = ?", arguments: [key.bucket, name])
            unlink(fileURL(key, name: name).path)
        } }
        memory.remove(key)
    }

    /// Entries and bytes, in total and per bucket, from the index.
    /// - Throws: ``StorageError`` when the index cannot be read.
    public func stats() throws -> BlobStoreStats {
        try wrap {
            try database.read { db in
                let buckets = try Row.fetchAll(db, sql: "SELECT bucket, COUNT(*) AS entries, SUM(size) AS bytes FROM blob GROUP BY bucket ORDER BY bucket")
                    .map { BlobStoreStats.Bucket(bucket: $0["bucket"], entries: $0["entries"], bytes: $0["bytes"] ?? 0) }
                let total = try Row.fetchOne(db, sql: "SELECT bytes, entries FROM total WHERE id = 1")
                return BlobStoreStats(entries: total?["entries"] ?? 0, bytes: total?["bytes"] ?? 0,
                                      capacity: configuration.capacity, buckets: buckets)
            }
        }
    }

    // MARK: - Access times

    /// Writes the access times recorded since the last flush (reads only record them, in
    /// memory, so a read costs no write transaction). This process flushes them before each
    /// of its eviction decisions, every 256 reads, and when the cache is released (the end
    /// of a command). Another process's eviction may not see reads younger than that.
    /// - Throws: ``StorageError``.
    public func flushAccessTimes() throws {
        let pending = touches.drain()
        guard !pending.isEmpty else { return }
        try wrap { try database.write { db in try Self.apply(pending, db) } }
    }

    static func apply(_ pending: [PendingTouches.Entry], _ db: Database) throws {
        guard !pending.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "UPDATE blob SET accessedAt = MAX(accessedAt, ?) WHERE bucket = ? AND name = ?")
        for touch in pending { try statement.execute(arguments: [touch.accessedAt, touch.bucket, touch.name]) }
    }

    deinit { try? flushAccessTimes() }

    private func discard(_ key: BlobKey, name: String, reason: String) throws {
        logger.debug("blob cache entry discarded", metadata: ["key": "\(key)", "reason": "\(reason)"])
        try remove(key)
    }

    func wrap<T>(_ body: () throws -> T) throws -> T { try Self.wrap(directory.path, body) }

    private static func wrap<T>(_ path: String, _ body: () throws -> T) throws -> T { try SQLiteStore.mapErrors(at: path, body) }
}
