import BradOSStorage
import Foundation
import GRDB

/// One thing `brados search` can find: a message, a visit, an album, a meal. A domain yields
/// its documents through ``DomainPlugin/searchDocuments(in:into:)``.
public struct SearchDocument: Sendable, Equatable, Codable {
    /// Unique within the domain (e.g. `message:<id>`); the index replaces a document by it.
    public var key: String
    /// Shown first, and weighted above the body in the ranking.
    public var title: String
    public var body: String
    /// When the thing happened or was made (a message's time, a visit's day), if it has one.
    public var date: Date?
    /// The command that opens it, e.g. `brados coach show 3f2a…`. `{id}` in it stands for
    /// the part of ``key`` after its first colon, filled in when a result is shown (``command(forKey:)``):
    /// the index keeps each command once, so the messages of a conversation share
    /// `brados coach show 3f2a… --message {id}`.
    public var command: String

    public init(key: String, title: String, body: String, date: Date?, command: String) {
        self.key = key
        self.title = title
        self.body = body
        self.date = date
        self.command = command
    }

    /// `command` with `{id}` filled in from `key` (see ``command``).
    public static func command(_ command: String, forKey key: String) -> String {
        guard command.contains("{id}") else { return command }
        let id = key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) } ?? key
        return command.replacingOccurrences(of: "{id}", with: id)
    }
}

/// Where a domain's cache stands, as the search index records it: the store (a new one, e.g.
/// after an import or a clear, means every document again) and its revision within that
/// store (a higher one means the documents changed after the lower one).
public struct SearchStamp: Sendable, Equatable, Codable {
    public var origin: String
    public var revision: Int64

    public init(origin: String, revision: Int64) {
        self.origin = origin
        self.revision = revision
    }
}

/// The revision log of a domain database, for its search documents: a database a domain owns
/// keeps the revision of its last change and marks each changed row with it, in the same
/// transaction as the change. The search index reads the rows changed after the revision it
/// holds; nothing is tokenized while the cache is written (so a write costs what it did).
///
/// A domain calls ``createTable(_:)`` in a migration, ``next(_:)`` in every transaction that
/// changes, adds or deletes a row that yields a document (binding the result into each
/// changed row's `revision` column) and ``stamp(_:)`` when it feeds the index.
public enum SearchRevision {
    /// Creates the one-row table holding the store's identity (random, so a rebuilt or
    /// imported database is another store) and its last revision.
    /// - Throws: GRDB's `DatabaseError`.
    public static func createTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE searchRevision (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                store TEXT NOT NULL,
                revision INTEGER NOT NULL
            );
            INSERT INTO searchRevision (id, store, revision) VALUES (1, lower(hex(randomblob(16))), 1);
            """)
    }

    /// Moves the revision on and returns it: the value to mark the rows this transaction changes with.
    /// - Throws: GRDB's `DatabaseError`.
    public static func next(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE searchRevision SET revision = revision + 1 WHERE id = 1")
        return try Int64.fetchOne(db, sql: "SELECT revision FROM searchRevision WHERE id = 1") ?? 0
    }

    /// Where the database at `url` stands, read through SQLite's C API on a read-only
    /// connection (no GRDB queue: the common case of a search, nothing changed, costs one row).
    /// - Throws: ``StorageError`` (no such table in a database of an older schema, among others).
    public static func stamp(at url: URL) throws -> SearchStamp? {
        let rows = try SQLiteQuery.rows(url, [("SELECT store, revision FROM searchRevision WHERE id = 1", [])])[0]
        guard let row = rows.first, let origin = row[0].text, case let .integer(revision) = row[1] else { return nil }
        return SearchStamp(origin: origin, revision: revision)
    }

    /// Gives a database rebuilt from an archive its store identity: another than the
    /// exporting store's (the index reads all of it again), and the same for every import of
    /// the same archive (an import, interrupted and finished by recovery, gives the same bytes).
    /// - Parameter archived: the archive copy's stamp, read before the rebuild (`nil` for an
    ///   archive from before search).
    /// - Throws: GRDB's `DatabaseError`.
    public static func markImported(_ db: Database, archived: SearchStamp?) throws {
        let origin = "imported:" + (archived.map { "\($0.origin.prefix(64)):\($0.revision)" } ?? "none")
        // The random identity the migration wrote is zeroed, not left in the page's free space:
        // two imports of one archive must give the same bytes.
        try db.execute(sql: "PRAGMA secure_delete = ON")
        try db.execute(sql: "UPDATE searchRevision SET store = ?, revision = 1 WHERE id = 1", arguments: [origin])
    }

    /// Where the database stands.
    /// - Throws: GRDB's `DatabaseError`.
    public static func stamp(_ db: Database) throws -> SearchStamp? {
        try Row.fetchOne(db, sql: "SELECT store, revision FROM searchRevision WHERE id = 1").map { SearchStamp(origin: $0[0], revision: $0[1]) }
    }
}

extension SearchStamp {
    /// The stamp of a domain kept in one file written atomically (a new file each write):
    /// its inode, size and modification time; `nil` when there is no file.
    public static func file(_ url: URL) -> SearchStamp? {
        FileSystem.identity(of: url).map { SearchStamp(origin: "file:\($0)", revision: 0) }
    }
}
