import Foundation
import GRDB

// The index's schema (an imported index is checked against it: BradOSCore's BlobStore+Import).
extension BlobStore {
    package static var migrator: DatabaseMigrator {
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
