import Foundation
import GRDB

/// The one way brados opens a database it owns (the artwork index, the coach store): the
/// same pragmas, file mode and migration rule everywhere.
///
/// - The folder is created private (0700), the file 0600 before SQLite opens it (its `-wal`
///   and `-shm` files take the database file's mode).
/// - WAL (a ``DatabasePool``), `synchronous = NORMAL`, `trusted_schema = OFF`, and a 30 s
///   busy timeout, so processes that share a profile wait for each other instead of failing.
/// - Opening (the switch to WAL) and migrations run under `<folder>/.migrate.lock`: two
///   processes opening a new database at once never both run them.
public enum SQLiteStore {
    /// The configuration of a database brados owns.
    public static func configuration() -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA trusted_schema = OFF") }
        return config
    }

    /// Opens (creating if needed) the database at `url` and migrates it.
    /// - Throws: GRDB's `DatabaseError` as it is (callers map it to their ``StorageError``), ``StorageError``.
    public static func open(_ url: URL, migrator: DatabaseMigrator) throws -> DatabasePool {
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        if !FileManager.default.fileExists(atPath: url.path) {
            close(Glibc.open(url.path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
        }
        // Opening switches a new file to WAL, which SQLite answers with "database is locked"
        // (without waiting) while another process opens it too: open and migrate under the lock.
        return try FileLock.withExclusiveLock(at: url.deletingLastPathComponent().appendingPathComponent(".migrate.lock")) {
            let pool = try DatabasePool(path: url.path, configuration: configuration())
            try migrator.migrate(pool)
            return pool
        }
    }
}
