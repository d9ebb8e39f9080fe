import Foundation
import GRDB

// The index's schema, and the check of an imported index against it.
extension BlobCache {
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
                try ColumnCheck.time(values[5], "accessedAt")
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
}
