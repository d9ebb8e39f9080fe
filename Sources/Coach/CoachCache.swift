import BradOSCore
import BradOSStorage
import Foundation
import GRDB
import Logging

/// The coach's local store: one SQLite database per profile (`<data>/coach/coach.sqlite`,
/// WAL), migrated with `DatabaseMigrator`.
///
/// - `conversation`: remote id UNIQUE, user id, title, domain, last message at, message
///   count, created/updated at, cached at.
/// - `message`: remote id UNIQUE, conversation id → `conversation(remoteId)` ON DELETE
///   CASCADE, role (text), content, created at, cached at.
/// - `contextProfile`: remote id UNIQUE, user id UNIQUE, values/goals/situation (JSON), cached at.
/// - `sync`: when each list was last fetched in full (the age shown offline).
///
/// Every write is one transaction of upserts by remote id (`INSERT … ON CONFLICT DO UPDATE`,
/// never `INSERT OR REPLACE`, which would delete the row and cascade its messages away).
/// Dates are stored as Unix seconds (REAL), exact to the microsecond. Thread-safe, and
/// safe with several processes (SQLite locking, 30 s busy timeout).
public final class CoachCache: Sendable {
    public let url: URL
    let pool: DatabasePool

    /// Opens (creating and migrating) the database. A file that is not a readable SQLite
    /// database is moved aside to `coach.sqlite.corrupt` and a new one is started: the
    /// server holds the data, so nothing is lost that a fetch cannot bring back.
    /// - Throws: ``StorageError``.
    public init(url: URL, logger: Logger = Logger(label: "brados.coach")) throws {
        self.url = url
        pool = try SQLiteStore.mapErrors(at: url.path) {
            try SQLiteStore.openReplacingDamaged(url, open: { try SQLiteStore.open($0, contents: .acknowledged, migrator: Self.migrator) }) { aside in
                logger.warning("the coach cache \(url.path) is damaged; it was moved to \(aside.lastPathComponent) and is rebuilt from the server")
            }
        }
    }

    /// Removes every row (the file stays; `auth logout` removes the whole folder).
    /// - Throws: ``StorageError``.
    public func removeAll() throws {
        try write { db in
            _ = try SearchRevision.next(db)
            for table in ["message", "conversation", "contextProfile", "sync"] { try db.execute(sql: "DELETE FROM \(table)") }
        }
    }

    /// Row counts, for `cache stats`-style reports and tests.
    public func counts() throws -> (conversations: Int, messages: Int, contextProfiles: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contextProfile") ?? 0)
        }
    }

    // MARK: - Internals

    static func markSynced(_ key: String, at now: Date, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO sync (key, syncedAt) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET syncedAt = excluded.syncedAt",
                       arguments: [key, now.timeIntervalSince1970])
    }

    static func syncedAt(_ key: String, _ db: Database) throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT syncedAt FROM sync WHERE key = ?", arguments: [key]).map(Date.init(timeIntervalSince1970:))
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try SQLiteStore.mapErrors(at: url.path) { try pool.write(body) }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try SQLiteStore.mapErrors(at: url.path) { try pool.read(body) }
    }

}
