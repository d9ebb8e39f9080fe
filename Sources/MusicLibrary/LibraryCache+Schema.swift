import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB
import Logging

// The schema, the check of an imported database against it, and the one-time move of the
// JSON snapshot older brados wrote.
extension LibraryCache {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE snapshot (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    sectionKey TEXT NOT NULL,
                    sectionTitle TEXT NOT NULL,
                    origin TEXT,
                    generation TEXT NOT NULL,
                    savedAt REAL NOT NULL,
                    checkedAt REAL NOT NULL,
                    wholeAt REAL,
                    contentChangedAt INTEGER,
                    updatedThrough INTEGER,
                    shownCount INTEGER NOT NULL
                );
                CREATE TABLE album (
                    id INTEGER PRIMARY KEY,
                    ratingKey TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL,
                    artist TEXT NOT NULL,
                    year INTEGER,
                    thumb TEXT,
                    art TEXT,
                    addedAt INTEGER,
                    sortTitle TEXT NOT NULL,
                    identity TEXT NOT NULL,
                    shown INTEGER NOT NULL
                );
                CREATE INDEX album_shown_order ON album(shown, sortTitle, ratingKey);
                CREATE INDEX album_identity ON album(identity, sortTitle, ratingKey);
                CREATE TABLE collection (
                    position INTEGER PRIMARY KEY,
                    ratingKey TEXT NOT NULL,
                    title TEXT NOT NULL,
                    childCount INTEGER NOT NULL,
                    thumb TEXT
                );
                """)
        }
        // Search documents: each row marked with the revision that last changed it (see `SearchRevision`).
        migrator.registerMigration("v2-search") { db in
            try db.execute(sql: """
                ALTER TABLE album ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE collection ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                """)
            try SearchRevision.createTable(db)
        }
        return migrator
    }

    /// Rebuilds an imported `library.sqlite` (see ``SQLiteRebuild``): the schema must be
    /// exactly what ``migrator`` creates and every row is checked as the decoders check it
    /// (rating keys are digits); the columns brados derives (`sortTitle`, `identity`,
    /// `shown`, the shown count) are computed again rather than trusted. The refresh state
    /// is dropped: the next refresh downloads every album.
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func rebuildImported(_ url: URL, label: String) throws {
        typealias Problem = SQLiteRebuild.RowProblem
        try SQLiteRebuild.rebuild(url, label: label, migrator: migrator, tables: [
            .init("snapshot", columns: ["id", "sectionKey", "sectionTitle", "origin", "generation", "savedAt", "checkedAt", "wholeAt",
                                        "contentChangedAt", "updatedThrough", "shownCount"]) { v throws(Problem) in
                try ColumnCheck.integer(v[0], "id", in: 1...1)
                try ColumnCheck.text(v[1], "sectionKey", rule: IdentifierRule.token("section key"))
                try ColumnCheck.text(v[2], "sectionTitle")
                try ColumnCheck.text(v[3], "origin", rule: IdentifierRule.token("server identifier"), nullable: true)
                try ColumnCheck.text(v[4], "generation")
                try ColumnCheck.time(v[5], "savedAt")
                try ColumnCheck.time(v[6], "checkedAt")
                try ColumnCheck.time(v[7], "wholeAt", nullable: true)
                try ColumnCheck.integer(v[8], "contentChangedAt", in: Int64.min...Int64.max, nullable: true)
                try ColumnCheck.integer(v[9], "updatedThrough", in: Int64.min...Int64.max, nullable: true)
                try ColumnCheck.integer(v[10], "shownCount")
            },
            .init("album", columns: ["ratingKey", "title", "artist", "year", "thumb", "art", "addedAt", "sortTitle", "identity", "shown"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "ratingKey", rule: IdentifierRule.ratingKey)
                try ColumnCheck.text(v[1], "title")
                try ColumnCheck.text(v[2], "artist")
                try ColumnCheck.integer(v[3], "year", in: Int64.min...Int64.max, nullable: true)
                try ColumnCheck.text(v[4], "thumb", nullable: true)
                try ColumnCheck.text(v[5], "art", nullable: true)
                try ColumnCheck.integer(v[6], "addedAt", in: Int64.min...Int64.max, nullable: true)
                try ColumnCheck.text(v[7], "sortTitle")
                try ColumnCheck.text(v[8], "identity")
                try ColumnCheck.integer(v[9], "shown", in: 0...1)
            },
            .init("collection", columns: ["position", "ratingKey", "title", "childCount", "thumb"]) { v throws(Problem) in
                try ColumnCheck.integer(v[0], "position")
                try ColumnCheck.text(v[1], "ratingKey", rule: IdentifierRule.ratingKey)
                try ColumnCheck.text(v[2], "title")
                try ColumnCheck.integer(v[3], "childCount")
                try ColumnCheck.text(v[4], "thumb", nullable: true)
            },
        ])
        do {
            try DatabaseQueue(path: url.path).write { db in
                try derive(db)
                try db.execute(sql: "UPDATE snapshot SET wholeAt = NULL, contentChangedAt = NULL, updatedThrough = NULL")
            }
        } catch {
            throw ArchiveError.unsafeEntry(path: label, reason: "its derived columns and refresh state could not be reset (\(error))")
        }
    }

    /// Computes `sortTitle`, `identity`, `shown` and the shown count again from the albums' fields.
    static func derive(_ db: Database) throws {
        let update = try db.makeStatement(sql: "UPDATE album SET sortTitle = ?, identity = ? WHERE ratingKey = ?")
        for album in try albums(db, sql: "SELECT \(albumColumns) FROM album") {
            try update.execute(arguments: [album.sortTitle, album.identity, album.ratingKey])
        }
        try chooseShown(db, among: nil)
        try db.execute(sql: "UPDATE snapshot SET shownCount = (SELECT count(*) FROM album WHERE shown = 1)")
    }

    /// Moves a JSON snapshot written by an older brados (`snapshot.json`, beside the
    /// database) into the database once, then removes it and its refresh state: a profile
    /// keeps its albums offline across the upgrade. Its refresh state is not carried over,
    /// so the next refresh downloads every album. The file is removed once moved, when it
    /// does not decode (the next refresh brings the albums back), or when the database
    /// already holds a section (which is newer); a move that fails (a full disk) leaves it
    /// for the next run.
    /// - Returns: whether a snapshot was moved.
    @discardableResult
    func migrateLegacySnapshot(_ legacy: URL, logger: Logger) -> Bool {
        guard let bytes = try? AtomicFile.readIfPresent(legacy) else { return false }
        func remove() {
            try? FileSystem.remove(legacy)
            try? FileSystem.remove(legacy.deletingLastPathComponent().appendingPathComponent("snapshot-state.json"))
        }
        guard let old = try? JSONCoding.decode(LegacyLibrarySnapshot.self, from: bytes), old.formatVersion == LegacyLibrarySnapshot.formatVersion,
              IdentifierRule.token("section key").isValid(old.sectionKey), old.origin.map(IdentifierRule.token("server identifier").isValid) ?? true
        else {
            remove()
            return false
        }
        do {
            var update = Update(sectionKey: old.sectionKey, sectionTitle: old.sectionTitle, origin: old.origin, albums: old.albums + (old.duplicates ?? []),
                                whole: true, collections: old.collections, contentChangedAt: nil, updatedThrough: nil, at: old.savedAt)
            update.forgetsState = true
            update.intoEmptyOnly = true
            _ = try apply(update)
            remove()
            return true
        } catch is BaseMoved {
            remove()
            return false
        } catch {
            logger.warning("could not move the library snapshot into \(url.path) (it is kept for the next run): \(error.logText)")
            return false
        }
    }
}

/// The JSON snapshot older brados wrote (`snapshot.json`, format 1): read once, to move it
/// into ``LibraryCache``, and to check one that comes in an archive of an older brados.
public struct LegacyLibrarySnapshot: Decodable, Sendable {
    static let formatVersion = 1
    var formatVersion: Int
    var savedAt: Date
    var sectionKey: String
    var sectionTitle: String
    var albums: [Album]
    var collections: [PlexCollection]
    var origin: String?
    var duplicates: [Album]?
}
