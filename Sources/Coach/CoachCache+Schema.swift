import BradOSCore
import BradOSNetworking
import Foundation
import GRDB

// The schema, and the check of an imported database against it.
extension CoachCache {
    /// Rebuilds an imported `coach.sqlite` (see ``SQLiteRebuild``): the schema must be exactly
    /// what ``migrator`` creates, and every row is checked as the decoders check it (ids in
    /// their character sets, numbers, the context profile's JSON).
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    /// The refresh cursors and kept counts are dropped (`forgetCursors`): the next refresh of an imported copy is a full one.
    public static func rebuildImported(_ url: URL, label: String) throws {
        typealias Problem = SQLiteRebuild.RowProblem
        let user = IdentifierRule.token("user id")
        try SQLiteRebuild.rebuild(url, label: label, migrator: migrator, tables: [
            .init("conversation", columns: ["remoteId", "userId", "title", "domain", "lastMessageAt", "messageCount", "createdAt", "updatedAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: Conversation.idRule)
                try ColumnCheck.text(v[1], "userId", rule: user)
                try ColumnCheck.text(v[2], "title", nullable: true)
                try ColumnCheck.text(v[3], "domain", nullable: true)
                try ColumnCheck.time(v[4], "lastMessageAt", nullable: true)
                try ColumnCheck.integer(v[5], "messageCount")
                for index in 6...8 { try ColumnCheck.time(v[index], "a date") }
            },
            .init("message", columns: ["remoteId", "conversationId", "role", "content", "createdAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: Message.idRule)
                try ColumnCheck.text(v[1], "conversationId", rule: Conversation.idRule)
                try ColumnCheck.text(v[2], "role")
                try ColumnCheck.text(v[3], "content")
                try ColumnCheck.time(v[4], "createdAt")
                try ColumnCheck.time(v[5], "cachedAt")
            },
            .init("contextProfile", columns: ["remoteId", "userId", "valuesJSON", "goalsJSON", "situationJSON", "createdAt", "updatedAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: IdentifierRule.token("context profile id"))
                try ColumnCheck.text(v[1], "userId", rule: user)
                try ColumnCheck.json(v[2], "valuesJSON", as: [ContextProfile.Value].self)
                try ColumnCheck.json(v[3], "goalsJSON", as: [ContextProfile.Goal].self)
                try ColumnCheck.json(v[4], "situationJSON", as: ContextProfile.Situation.self)
                try ColumnCheck.time(v[5], "createdAt", nullable: true)
                try ColumnCheck.time(v[6], "updatedAt", nullable: true)
                try ColumnCheck.time(v[7], "cachedAt")
            },
            .init("sync", columns: ["key", "syncedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "key")
                try ColumnCheck.time(v[1], "syncedAt")
            },
        ])
        do {
            try DatabaseQueue(path: url.path).write(forgetCursors)
        } catch {
            throw ArchiveError.unsafeEntry(path: label, reason: "its refresh cursors and counts could not be reset (\(error))")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE conversation (
                    id INTEGER PRIMARY KEY,
                    remoteId TEXT NOT NULL UNIQUE,
                    userId TEXT NOT NULL,
                    title TEXT,
                    domain TEXT,
                    lastMessageAt REAL,
                    messageCount INTEGER NOT NULL,
                    createdAt REAL NOT NULL,
                    updatedAt REAL NOT NULL,
                    cachedAt REAL NOT NULL
                );
                CREATE INDEX conversation_user_updated ON conversation(userId, updatedAt DESC, remoteId);
                CREATE TABLE message (
                    id INTEGER PRIMARY KEY,
                    remoteId TEXT NOT NULL UNIQUE,
                    conversationId TEXT NOT NULL REFERENCES conversation(remoteId) ON DELETE CASCADE,
                    role TEXT NOT NULL,
                    content TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    cachedAt REAL NOT NULL
                );
                CREATE INDEX message_conversation_created ON message(conversationId, createdAt, remoteId);
                CREATE TABLE contextProfile (
                    id INTEGER PRIMARY KEY,
                    remoteId TEXT NOT NULL UNIQUE,
                    userId TEXT NOT NULL UNIQUE,
                    valuesJSON TEXT NOT NULL,
                    goalsJSON TEXT NOT NULL,
                    situationJSON TEXT NOT NULL,
                    createdAt REAL,
                    updatedAt REAL,
                    cachedAt REAL NOT NULL
                );
                CREATE TABLE sync (
                    key TEXT PRIMARY KEY,
                    syncedAt REAL NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // Search documents: each row marked with the revision that last changed what it yields
        // (see `SearchRevision`), in the same transaction as the change.
        migrator.registerMigration("v2-search") { db in
            try db.execute(sql: """
                ALTER TABLE conversation ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE message ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                """)
            try SearchRevision.createTable(db)
        }
        return migrator
    }
}
