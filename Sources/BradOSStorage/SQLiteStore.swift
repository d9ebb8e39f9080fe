import Foundation
import GRDB

/// The one way brados opens a database it owns (the artwork index, the coach store, the
/// library store): the same pragmas, file mode and migration rule everywhere.
///
/// - The folder is created private (0700), the file 0600 before SQLite opens it (its `-wal`,
///   `-shm` and `-journal` files take the database file's mode).
/// - `synchronous` by what the database holds (``Contents``): `FULL` (each commit on the disk
///   before it returns) for the person's own data or a change not yet sent, and for every
///   rollback journal (`NORMAL` there may corrupt a database at a power cut); `NORMAL` only for
///   a WAL database of what can be fetched or derived again, which a power cut may take its
///   last transactions from but never damages. `trusted_schema = OFF`, and a 30 s busy
///   timeout, so processes that share a profile wait for each other instead of failing.
/// - A journal of one of two kinds (``Journal``): WAL (a ``DatabasePool``: readers and a
///   writer at once), or a rollback journal for a store read far more than written that must
///   still answer on a full disk (a read writes nothing, where WAL needs room for its `-wal`
///   and `-shm` files even to read).
/// - Opening (the switch to WAL) and migrations run under `<folder>/.migrate.lock`: two
///   processes opening a new database at once never both run them.
public enum SQLiteStore {
    /// The files SQLite keeps beside a database (`-wal`, `-shm`, `-journal`): they go wherever
    /// the database goes, and are removed with it, since SQLite would replay them onto
    /// whatever database later sits beside them. The one list of them.
    public static let sidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// Whether `path` is a database's sidecar (see ``sidecarSuffixes``).
    public static func isSidecar(_ path: String) -> Bool { sidecarSuffixes.contains { path.hasSuffix($0) } }

    /// How a database keeps its transactions.
    public enum Journal: Sendable {
        /// Write-ahead log: readers never wait for the writer.
        case wal
        /// A rollback journal (`DELETE`): a read needs no file beside the database.
        case rollback
    }

    /// What a database holds, which says how much a power cut may take from it
    /// (docs/caching.md lists each store's).
    public enum Contents: Sendable {
        /// What the server or the other stores give again (the search index, the artwork index):
        /// a commit may be lost at a power cut, and is fetched or derived again.
        case fetchable
        /// The person's own, or what a command acknowledged (a deleted conversation's
        /// tombstone): a commit is on the disk when it returns.
        case acknowledged
    }

    /// The configuration of a database brados owns.
    public static func configuration(journal: Journal = .wal, contents: Contents = .acknowledged) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(30)
        let synchronous = journal == .wal && contents == .fetchable ? "NORMAL" : "FULL"
        let pragmas = "PRAGMA synchronous = \(synchronous); PRAGMA trusted_schema = OFF" + (journal == .rollback ? "; PRAGMA journal_mode = DELETE" : "")
        config.prepareDatabase { db in try db.execute(sql: pragmas) }
        return config
    }

    /// Opens (creating if needed) the database at `url` in WAL mode and migrates it.
    /// - Throws: GRDB's `DatabaseError` as it is (callers map it to their ``StorageError``), ``StorageError``.
    public static func open(_ url: URL, contents: Contents, migrator: DatabaseMigrator) throws -> DatabasePool {
        try open(url, migrator: migrator) {
            let pool = try DatabasePool(path: url.path, configuration: configuration(contents: contents))
            // GRDB's pool sets `synchronous = NORMAL` on its writer once it has switched to WAL,
            // after our pragmas ran: the writer's setting is made again here (outside a
            // transaction, where SQLite takes it). Readers never commit.
            if contents == .acknowledged {
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            }
            return pool
        }
    }

    /// Opens (creating if needed) the database at `url` with a rollback journal and migrates it.
    /// - Throws: GRDB's `DatabaseError` as it is (callers map it to their ``StorageError``), ``StorageError``.
    public static func openWithRollbackJournal(_ url: URL, migrator: DatabaseMigrator) throws -> DatabaseQueue {
        try open(url, migrator: migrator) { try DatabaseQueue(path: url.path, configuration: configuration(journal: .rollback)) }
    }

    static func open<Writer: DatabaseWriter>(_ url: URL, migrator: DatabaseMigrator, connect: () throws -> Writer) throws -> Writer {
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        if !FileManager.default.fileExists(atPath: url.path) {
            close(Glibc.open(url.path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
        }
        // Opening switches a new file to WAL, which SQLite answers with "database is locked"
        // (without waiting) while another process opens it too: open and migrate under the lock.
        return try FileLock.withExclusiveLock(at: url.deletingLastPathComponent().appendingPathComponent(".migrate.lock")) {
            let writer = try connect()
            try migrator.migrate(writer)
            return writer
        }
    }

    /// Opens an existing database for reading only: no migration, no lock, nothing written
    /// (a screen that reads one row of a store it does not otherwise use, e.g. `brados today`).
    /// - Throws: GRDB's `DatabaseError` as it is (callers map it to their ``StorageError``).
    public static func openReadOnly(_ url: URL) throws -> DatabaseQueue { try GRDBReadOnly.open(url) }

    /// Reads an existing database read-only (no migration, no lock, nothing written): `body`
    /// runs in one read transaction. When the file is of an older schema (`body` meets a table
    /// or column it lacks), `migrate` opens it the usual way (which migrates it) and the read
    /// runs again.
    /// - Throws: ``StorageError``, or what `body` and `migrate` throw.
    public static func readExisting<T>(_ url: URL, migrate: () throws -> Void, _ body: (Database) throws -> T) throws -> T {
        try mapErrors(at: url.path) {
            do {
                return try openReadOnly(url).read(body)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR
                && (error.message ?? "").hasPrefix("no such") {
                try migrate()
                return try openReadOnly(url).read(body)
            }
        }
    }

    /// Runs `body` against a database at `path`: a GRDB failure becomes the
    /// ``StorageError`` that names it (a full disk as such); other errors pass as they are.
    /// - Throws: ``StorageError``, or what `body` throws.
    public static func mapErrors<T>(at path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError {
            throw StorageError.database(error, path: path)
        }
    }

    /// Opens a database with `open`; a file that is not a readable SQLite database is moved
    /// aside to `<name>.corrupt` (replacing an older one) and a new database is started. For
    /// stores whose every row a fetch brings back.
    /// - Parameter damaged: called with the damaged file's new place, before the new database opens.
    /// - Throws: what `open` throws, when even a new database cannot be opened.
    public static func openReplacingDamaged<Writer>(_ url: URL, open: (URL) throws -> Writer, damaged: (URL) -> Void) throws -> Writer {
        do {
            return try open(url)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode.primaryResultCode) {
            let aside = url.appendingPathExtension("corrupt")
            try? FileSystem.remove(aside)
            rename(url.path, aside.path)
            for suffix in sidecarSuffixes { unlink(url.path + suffix) }
            damaged(aside)
            return try open(url)
        }
    }
}
