import Crypto
import Foundation
import GRDB
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The default ``BlobCaching``: blob files in `<directory>/<bucket>/<sha256(identifier)>`,
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
public final class BlobCache: BlobCaching {
    public let directory: URL
    public let configuration: BlobCacheConfiguration
    let database: DatabasePool
    let memory: MemoryLRU
    let touches = PendingTouches()
    let spares: SparePool
    let now: @Sendable () -> Date
    let logger: Logger

    /// Opens (creating) the cache in `directory`.
    /// - Throws: ``StorageError``.
    public init(directory: URL, configuration: BlobCacheConfiguration = BlobCacheConfiguration(),
                now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "brados.blobcache")) throws {
        self.directory = directory
        self.configuration = configuration
        self.now = now
        self.logger = logger
        memory = MemoryLRU(capacity: configuration.memoryCapacity)
        spares = SparePool(directory: directory.appendingPathComponent(".spare", isDirectory: true))
        let index = directory.appendingPathComponent("index.sqlite")
        database = try Self.wrap(index.path) { try SQLiteStore.open(index, migrator: Self.migrator) }
        // A lowered cap is enforced at once, not at the next write.
        if let total = try? database.read({ try Int64.fetchOne($0, sql: "SELECT bytes FROM total WHERE id = 1") }), total > configuration.capacity {
            try trim(toBytes: Int64(Double(configuration.capacity) * configuration.trimRatio))
        }
    }

    /// Rebuilds an imported `index.sqlite` (see ``SQLiteRebuild``): the schema must be the
    /// cache's own, and every row a plain bucket and name, a size, a checksum and a time. The
    /// running total is not copied: the fresh database's triggers count the copied rows.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func rebuildImported(_ url: URL, label: String) throws {
        try SQLiteRebuild.rebuild(url, label: label, migrator: migrator, tables: [
            SQLiteRebuild.Table("blob", columns: ["bucket", "name", "identifier", "size", "checksum", "accessedAt"]) { values throws(SQLiteRebuild.RowProblem) in
                guard case let .string(bucket) = values[0].storage, case let .string(name) = values[1].storage, isSafe(bucket: bucket, name: name) else {
                    throw SQLiteRebuild.RowProblem("bucket and name are not a plain folder and a SHA-256")
                }
                try ColumnCheck.text(values[2], "identifier")
                try ColumnCheck.integer(values[3], "size")
                try ColumnCheck.text(values[4], "checksum")
                try ColumnCheck.real(values[5], "accessedAt")
            },
        ])
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE blob (
                    bucket TEXT NOT NULL,
                    name TEXT NOT NULL,
                    identifier TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    accessedAt REAL NOT NULL,
                    PRIMARY KEY (bucket, name)
                ) WITHOUT ROWID;
                CREATE INDEX blob_accessedAt ON blob(accessedAt);
                CREATE TABLE total (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL, entries INTEGER NOT NULL);
                INSERT INTO total VALUES (1, 0, 0);
                CREATE TRIGGER blob_insert AFTER INSERT ON blob BEGIN
                    UPDATE total SET bytes = bytes + NEW.size, entries = entries + 1 WHERE id = 1;
                END;
                CREATE TRIGGER blob_delete AFTER DELETE ON blob BEGIN
                    UPDATE total SET bytes = bytes - OLD.size, entries = entries - 1 WHERE id = 1;
                END;
                CREATE TRIGGER blob_update AFTER UPDATE OF size ON blob BEGIN
                    UPDATE total SET bytes = bytes + NEW.size - OLD.size WHERE id = 1;
                END;
                """)
        }
        migrator.registerMigration("v2-xxh64") { db in
            // SHA-256 cost more than reading the blob; entries written before verify as
            // mismatches and are refetched.
            try db.execute(sql: "ALTER TABLE blob RENAME COLUMN sha256 TO checksum")
        }
        return migrator
    }

    // MARK: - BlobCaching

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
            || (configuration.requireImageData && !BlobCacheConfiguration.looksLikeImage(data)) {
            try discard(key, name: name, reason: "size or checksum mismatch")
            return nil
        }
        if touches.record(key.bucket, name, at: now().timeIntervalSince1970) >= 256 { try flushAccessTimes() }
        memory.set(key, data)
        logger.debug("blob cache hit", metadata: ["key": "\(key)", "bytes": "\(data.count)"])
        return data
    }

    public func store(_ data: Data, for key: BlobKey) throws {
        if configuration.requireImageData, !BlobCacheConfiguration.looksLikeImage(data) {
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

    public func remove(_ key: BlobKey) throws {
        let name = Self.fileName(key)
        try wrap { try database.write { db in
            try db.execute(sql: "DELETE FROM blob WHERE bucket = ? AND name = ?", arguments: [key.bucket, name])
            unlink(fileURL(key, name: name).path)
        } }
        memory.remove(key)
    }

    public func stats() throws -> BlobCacheStats {
        try wrap {
            try database.read { db in
                let buckets = try Row.fetchAll(db, sql: "SELECT bucket, COUNT(*) AS entries, SUM(size) AS bytes FROM blob GROUP BY bucket ORDER BY bucket")
                    .map { BlobCacheStats.Bucket(bucket: $0["bucket"], entries: $0["entries"], bytes: $0["bytes"] ?? 0) }
                let total = try Row.fetchOne(db, sql: "SELECT bytes, entries FROM total WHERE id = 1")
                return BlobCacheStats(entries: total?["entries"] ?? 0, bytes: total?["bytes"] ?? 0,
                                      capacity: configuration.capacity, buckets: buckets)
            }
        }
    }

    @discardableResult
    public func trim(toBytes bytes: Int64) throws -> BlobTrimReport {
        let evicted: [(bucket: String, name: String, size: Int64)] = try wrap {
            try database.write { db in
                try Self.apply(touches.drain(), db)
                let total = try Int64.fetchOne(db, sql: "SELECT bytes FROM total WHERE id = 1") ?? 0
                guard total > bytes else { return [] }
                let victims = try Self.evict(db, down: total, to: bytes, sparing: nil)
                for victim in victims where Self.isSafe(bucket: victim.bucket, name: victim.name) {
                    unlink(fileURL(bucket: victim.bucket, name: victim.name).path)
                }
                return victims
            }
        }
        memory.removeAll()
        let orphans = try removeOrphanFiles()
        let remaining = try stats().bytes
        return BlobTrimReport(evictedEntries: evicted.count, evictedBytes: evicted.reduce(0) { $0 + $1.size },
                              orphanFilesRemoved: orphans, remainingBytes: remaining)
    }

    public func removeAll() throws {
        let buckets = try wrap { try database.write { db -> [String] in
            let buckets = try String.fetchAll(db, sql: "SELECT DISTINCT bucket FROM blob")
            try db.execute(sql: "DELETE FROM blob")
            return buckets
        } }
        memory.removeAll()
        // Only plain names: the index may have come from an archive (a bucket of "../.." is skipped).
        for bucket in Set(buckets + bucketFolders()) where Self.isSafe(bucket: bucket, name: String(repeating: "0", count: 64)) {
            try FileSystem.remove(directory.appendingPathComponent(bucket, isDirectory: true))
        }
        spares.removeAll()
    }

    // MARK: - Internals

    /// Deletes least recently accessed rows until `total` is at most `target`; returns them.
    static func evict(_ db: Database, down total: Int64, to target: Int64, sparing spared: (String, String)?) throws
        -> [(bucket: String, name: String, size: Int64)] {
        var remaining = total
        var victims: [(bucket: String, name: String, size: Int64)] = []
        let cursor = try Row.fetchCursor(db, sql: "SELECT bucket, name, size FROM blob ORDER BY accessedAt, name")
        while remaining > target, let row = try cursor.next() {
            let victim = (bucket: row["bucket"] as String, name: row["name"] as String, size: row["size"] as Int64)
            if let spared, spared == (victim.bucket, victim.name) { continue }
            victims.append(victim)
            remaining -= victim.size
        }
        for victim in victims {
            try db.execute(sql: "DELETE FROM blob WHERE bucket = ? AND name = ?", arguments: [victim.bucket, victim.name])
        }
        return victims
    }

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

    private func bucketFolders() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { name in
            guard !name.hasPrefix(".") else { return false }
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// Removes blob files the index does not know (left by a crash). Files are listed before
    /// the index is read, and anything modified in the last five minutes is spared, so a
    /// write in flight in another process is never taken for an orphan.
    private func removeOrphanFiles() throws -> Int {
        let listed = bucketFolders().map { bucket in
            (bucket, FileSystem.regularFiles(under: directory.appendingPathComponent(bucket, isDirectory: true)))
        }
        let known = try wrap { try database.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT bucket, name FROM blob").map { row -> String in
                let name: String = row["name"]
                return "\(row["bucket"] as String)/\(name.prefix(2))/\(name)"
            })
        } }
        var removed = 0
        let recent = Date().addingTimeInterval(-300)
        for (bucket, files) in listed {
            for file in files where !known.contains("\(bucket)/\(file.relativePath)") && file.modified < recent {
                unlink(file.url.path)
                removed += 1
            }
        }
        return removed
    }

    /// Where the blob for `key` lives on disk (whether or not it is cached).
    public func fileURL(for key: BlobKey) -> URL { fileURL(key, name: Self.fileName(key)) }

    /// `<bucket>/<first two hex digits>/<name>`: 256 folders per bucket keep directories small
    /// and spread inode allocation (a single folder made file creation the bottleneck).
    func fileURL(_ key: BlobKey, name: String) -> URL { fileURL(bucket: key.bucket, name: name) }

    func fileURL(bucket: String, name: String) -> URL { Self.fileURL(in: directory, bucket: bucket, name: name) }

    /// Whether an index row names a file inside the cache: a plain bucket name and a SHA-256
    /// file name. An index from elsewhere (an imported archive) is never trusted with paths.
    static func isSafe(bucket: String, name: String) -> Bool {
        let plain = { (byte: UInt8) in (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95 }
        return !bucket.isEmpty && bucket.utf8.count <= 64 && bucket.utf8.allSatisfy(plain)
            && name.utf8.count == 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func fileURL(in directory: URL, bucket: String, name: String) -> URL {
        directory.appendingPathComponent(bucket, isDirectory: true)
            .appendingPathComponent(String(name.prefix(2)), isDirectory: true).appendingPathComponent(name)
    }

    /// The file name of a key: the SHA-256 of its identifier, in hex.
    public static func fileName(_ key: BlobKey) -> String { sha256(Data(key.identifier.utf8)) }

    /// The checksum stored for a blob: `xxh64:` and 16 hex digits.
    static func checksum(_ data: Data) -> String {
        var value = XXH64.hash(data).bigEndian
        return "xxh64:" + Hex.encode(withUnsafeBytes(of: &value) { Array($0) })
    }

    /// The file name of a key: the SHA-256 of its identifier, in hex.
    static func sha256(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    private func wrap<T>(_ body: () throws -> T) throws -> T { try Self.wrap(directory.path, body) }

    private static func wrap<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError {
            throw StorageError.database(error, path: path)
        }
    }
}

/// Emptied files of evicted blobs, kept for the next writes of this process.
///
/// Creating a file is the costliest part of a write on ext4 once many files were deleted:
/// the inode allocator skips recently freed inodes (`find_inode_bit` → `recently_deleted`
/// took two thirds of `store` in `perf`). An evicted blob's file is therefore moved to
/// `.spare/` and emptied instead of unlinked, and a later write renames it
/// into place and refills it. At most `limit` spares are kept; the rest are unlinked.
/// Claiming is a `rename`, so a spare taken by another process is simply skipped.
/// Thread-safe.
final class SparePool: Sendable {
    let directory: URL
    let limit: Int
    private let files = Mutex<[URL]>([])

    /// Adopts the spares earlier processes left (removing any beyond `limit`, and staging
    /// files a crashed process left behind).
    init(directory: URL, limit: Int = 512) {
        self.directory = directory
        self.limit = limit
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        let old = Date().addingTimeInterval(-300)
        for name in names where name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name)
            if let modified = FileSystem.attributes(of: path)?.modified, modified < old { unlink(path.path) }
        }
        let published = names.filter { !$0.hasPrefix(".") }
        for name in published.dropFirst(limit) { unlink(directory.appendingPathComponent(name).path) }
        files.withLock { $0 = published.prefix(limit).map { directory.appendingPathComponent($0) } }
    }

    /// Moves an evicted blob file here (emptied), or unlinks it when the pool is full.
    ///
    /// A spare is published under a fresh random name only once it is empty: it is moved to a
    /// private staging name, emptied, then renamed into the pool. Another process can only
    /// ever claim (by rename) a file that is already empty and that nobody will touch again.
    func recycle(_ url: URL, name: String) {
        let full = files.withLock { $0.count >= limit }
        if full { unlink(url.path); return }
        let staging = directory.appendingPathComponent(".staging-\(Self.randomName())")
        if rename(url.path, staging.path) != 0 {
            guard errno == ENOENT, (try? FileSystem.createDirectory(directory)) != nil, rename(url.path, staging.path) == 0 else {
                unlink(url.path)
                return
            }
        }
        // Emptied through a descriptor, then closed: ext4 flags a file truncated to zero and
        // starts writeback when it is next closed (`auto_da_alloc`); closing it here, empty,
        // clears the flag cheaply instead of on the next write's close.
        let fd = open(staging.path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { unlink(staging.path); return }
        let emptied = ftruncate(fd, 0) == 0
        close(fd)
        let spare = directory.appendingPathComponent(Self.randomName())
        guard emptied, rename(staging.path, spare.path) == 0 else { unlink(staging.path); return }
        files.withLock { $0.append(spare) }
    }

    static func randomName() -> String { String(UInt64.random(in: .min ... .max), radix: 16) }

    /// A spare file to reuse, if any.
    func take() -> URL? { files.withLock { $0.popLast() } }

    func removeAll() {
        files.withLock { $0.removeAll() }
        try? FileSystem.remove(directory)
    }
}

/// Access times recorded by reads, waiting to be written. Thread-safe.
final class PendingTouches: Sendable {
    struct Entry: Sendable {
        var bucket: String
        var name: String
        var accessedAt: Double
    }
    private let state = Mutex<(entries: [String: Entry], reads: Int)>(([:], 0))

    /// Records a read; returns the reads recorded since the last drain.
    @discardableResult
    func record(_ bucket: String, _ name: String, at time: Double) -> Int {
        state.withLock { state in
            state.entries[bucket + "/" + name] = Entry(bucket: bucket, name: name, accessedAt: time)
            state.reads += 1
            return state.reads
        }
    }

    func drain() -> [Entry] {
        state.withLock { state in
            defer { state = ([:], 0) }
            return Array(state.entries.values)
        }
    }
}
