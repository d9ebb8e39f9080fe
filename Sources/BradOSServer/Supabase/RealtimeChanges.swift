import Foundation
import GRDB

/// What Supabase's logical replication gives Realtime: every committed change of a table,
/// whoever wrote it (the API, the admin routes, another process writing the SQLite file).
///
/// Triggers on the published tables append each change to `realtime_change` in the writer's
/// own transaction, so a change is logged if and only if it commits. The old row is logged
/// whole (as a table with `REPLICA IDENTITY FULL`), so a filter applies to deletes too. A
/// writer that inserts a row into `realtime_pause` in its transaction logs nothing (the seed of
/// a hundred thousand messages).
enum RealtimeChanges {
    /// The tables Realtime publishes (the `supabase_realtime` publication).
    static let published = [CoachRoutes.conversations, CoachRoutes.messages]

    /// One logged change.
    struct Change: Sendable, Equatable {
        var id: Int64
        var table: String
        /// INSERT, UPDATE or DELETE.
        var type: String
        /// The row after the change (JSON of SQLite's values), for inserts and updates.
        var record: String?
        /// The row before it, for updates and deletes.
        var oldRecord: String?
        /// The owner of the row (Row Level Security: only its user hears of it).
        var userID: String?
        var committedAt: Double
    }

    static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-realtime") { db in
            try db.execute(sql: """
                CREATE TABLE realtime_change (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    tbl TEXT NOT NULL,
                    type TEXT NOT NULL,
                    record TEXT,
                    old_record TEXT,
                    user_id TEXT,
                    committed_at REAL NOT NULL
                );
                CREATE TABLE realtime_pause (reason TEXT);
                """)
            // The columns of the time (messages had no updated_at yet).
            for table in published { try db.execute(sql: triggers(table, columns: table.columns.filter { $0.name != "updated_at" })) }
        }
        // A message's text can change: `updated_at` says when (NULL until it is first edited),
        // set by a trigger whoever edits it, so a client can ask what was edited after a time.
        migrator.registerMigration("v10-message-edits") { db in
            try db.execute(sql: """
                ALTER TABLE messages ADD COLUMN updated_at REAL;
                CREATE INDEX messages_edited ON messages(conversation_id, updated_at) WHERE updated_at IS NOT NULL;
                CREATE TRIGGER messages_edited AFTER UPDATE OF content, role ON messages WHEN NEW.updated_at IS OLD.updated_at BEGIN
                    UPDATE messages SET updated_at = (julianday('now') - 2440587.5) * 86400.0 WHERE id = NEW.id;
                END;
                DROP TRIGGER realtime_messages_insert;
                DROP TRIGGER realtime_messages_update;
                DROP TRIGGER realtime_messages_delete;
                """)
            try db.execute(sql: triggers(CoachRoutes.messages))
        }
        // One edit, one UPDATE (as Postgres's BEFORE trigger would give): the edit trigger logs
        // the row with its edit time, the old row whole, and the generic trigger passes over both
        // halves of the edit (the text without its time, then the time alone).
        migrator.registerMigration("v11-one-event-per-edit") { db in
            try db.execute(sql: """
                DROP TRIGGER messages_edited;
                DROP TRIGGER realtime_messages_update;
                """)
            try db.execute(sql: editTriggers)
        }
        // Texts cast to TEXT in the logged rows (a NUL's text is a BLOB: ``row(_:_:columns:)``):
        // every trigger again, each table's columns as before.
        migrator.registerMigration("v12-texts-with-nul") { db in
            for table in published {
                for event in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER IF EXISTS realtime_\(table.name)_\(event)") }
            }
            try db.execute(sql: "DROP TRIGGER IF EXISTS messages_edited")
            for table in published where table.name != CoachRoutes.messages.name {
                try db.execute(sql: triggers(table, columns: table.columns.filter { $0.name != "updated_at" }))
            }
            try db.execute(sql: triggers(CoachRoutes.messages))
            try db.execute(sql: "DROP TRIGGER realtime_messages_update")
            try db.execute(sql: editTriggers)
        }
    }

    /// The messages' update triggers since v11: the edit time set and the edit logged once.
    private static var editTriggers: String {
        let table = CoachRoutes.messages
        let now = "(julianday('now') - 2440587.5) * 86400.0"
        let edited = "(NEW.content IS NOT OLD.content OR NEW.role IS NOT OLD.role)"
        let timeAlone = table.columns.filter { $0.name != "updated_at" }.map { "NEW.\"\($0.name)\" IS OLD.\"\($0.name)\"" }
            .joined(separator: " AND ")
        return """
            CREATE TRIGGER messages_edited AFTER UPDATE OF content, role ON messages WHEN NEW.updated_at IS OLD.updated_at BEGIN
                UPDATE messages SET updated_at = \(now) WHERE id = NEW.id;
                INSERT INTO realtime_change (tbl, type, record, old_record, user_id, committed_at)
                SELECT 'messages', 'UPDATE', \(row(table, "m")), \(row(table, "OLD")), m.user_id, \(now)
                FROM messages m WHERE m.id = NEW.id AND NOT EXISTS (SELECT 1 FROM realtime_pause);
            END;
            CREATE TRIGGER realtime_messages_update AFTER UPDATE ON messages
            WHEN NOT EXISTS (SELECT 1 FROM realtime_pause)
                AND NOT (\(edited) AND NEW.updated_at IS OLD.updated_at)
                AND NOT (NEW.updated_at IS NOT OLD.updated_at AND \(timeAlone)) BEGIN
                INSERT INTO realtime_change (tbl, type, record, old_record, user_id, committed_at)
                VALUES ('messages', 'UPDATE', \(row(table, "NEW")), \(row(table, "OLD")), NEW.user_id, \(now));
            END;
            """
    }

    /// A row of `table` as a JSON object of SQLite's values (`columns`, all of the table's by default).
    /// A text is cast to TEXT: one holding a NUL is stored as a BLOB (``StoredText``), which
    /// `json_object` refuses, and as TEXT it comes out whole, the NUL written `\u0000`.
    private static func row(_ table: PostgRESTTable, _ alias: String, columns: [(name: String, type: PostgRESTTable.ColumnType)]? = nil) -> String {
        "json_object(" + (columns ?? table.columns).map { column in
            let value = "\(alias).\"\(column.name)\""
            return "'\(column.name)', " + (column.type == .text || column.type == .json ? "CAST(\(value) AS TEXT)" : value)
        }.joined(separator: ", ") + ")"
    }

    /// The three triggers of a table (logging `columns`, all of the table's by default).
    static func triggers(_ table: PostgRESTTable, columns: [(name: String, type: PostgRESTTable.ColumnType)]? = nil) -> String {
        func row(_ alias: String) -> String { Self.row(table, alias, columns: columns) }
        let now = "(julianday('now') - 2440587.5) * 86400.0"
        let owner = "\"\(table.owner)\""
        let paused = "WHEN NOT EXISTS (SELECT 1 FROM realtime_pause)"
        return """
            CREATE TRIGGER realtime_\(table.name)_insert AFTER INSERT ON "\(table.name)" \(paused) BEGIN
                INSERT INTO realtime_change (tbl, type, record, user_id, committed_at)
                VALUES ('\(table.name)', 'INSERT', \(row("NEW")), NEW.\(owner), \(now));
            END;
            CREATE TRIGGER realtime_\(table.name)_update AFTER UPDATE ON "\(table.name)" \(paused) BEGIN
                INSERT INTO realtime_change (tbl, type, record, old_record, user_id, committed_at)
                VALUES ('\(table.name)', 'UPDATE', \(row("NEW")), \(row("OLD")), NEW.\(owner), \(now));
            END;
            CREATE TRIGGER realtime_\(table.name)_delete AFTER DELETE ON "\(table.name)" \(paused) BEGIN
                INSERT INTO realtime_change (tbl, type, old_record, user_id, committed_at)
                VALUES ('\(table.name)', 'DELETE', \(row("OLD")), OLD.\(owner), \(now));
            END;
            """
    }

    /// The changes logged after `id`, oldest first (at most `limit`).
    static func after(_ id: Int64, limit: Int = 1000, _ db: Database) throws -> [Change] {
        try Row.fetchAll(db, sql: """
            SELECT id, tbl, type, record, old_record, user_id, committed_at FROM realtime_change WHERE id > ? ORDER BY id LIMIT ?
            """, arguments: [id, limit]).map {
            Change(id: $0[0], table: $0[1], type: $0[2], record: $0[3], oldRecord: $0[4], userID: $0[5], committedAt: $0[6])
        }
    }

    /// The last change logged (0: none).
    static func last(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM realtime_change") ?? 0
    }

    /// Forgets changes older than `age` seconds: every subscriber had them long ago.
    static func prune(olderThan age: Double, now: Date, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM realtime_change WHERE committed_at < ?", arguments: [now.timeIntervalSince1970 - age])
    }

    /// A logged row (SQLite's values) as PostgREST and Realtime show it: timestamps in ISO 8601,
    /// JSON columns parsed.
    static func record(_ json: String?, of table: PostgRESTTable) -> [String: Any]? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        var record: [String: Any] = [:]
        for (name, value) in object {
            switch (table.type(of: name), value) {
            case (.timestamp?, let seconds as NSNumber):
                record[name] = SupabaseAuthRoutes.timestamp(Date(timeIntervalSince1970: seconds.doubleValue))
            case (.json?, let text as String):
                record[name] = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? NSNull()
            case (.boolean?, let number as NSNumber):
                record[name] = number.intValue != 0
            default:
                record[name] = value
            }
        }
        return record
    }

    /// The columns as Realtime describes them (`[{name, type}]`, PostgreSQL's type names).
    static func columns(of table: PostgRESTTable) -> [[String: String]] {
        table.columns.compactMap { column in
            let type: String
            switch column.type {
            case .text: type = "text"
            case .integer: type = "int8"
            case .boolean: type = "bool"
            case .timestamp: type = "timestamptz"
            case .json: type = "jsonb"
            case .embeddedCount: return nil
            }
            return ["name": column.name, "type": type]
        }
    }
}
