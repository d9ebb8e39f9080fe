import BradOSCore
import Foundation
import GRDB

// Conversations: saving the user's list, reading it back.
extension CoachCache {
    /// Saves the user's conversation list: upserts every row and, when the list is complete,
    /// removes the user's conversations the server no longer has (their messages go by the cascade).
    /// - Throws: ``StorageError``.
    public func saveConversations(_ conversations: [Conversation], userID: String, at now: Date, complete: Bool = true) throws {
        try apply(Changes(upserted: conversations, serverIDs: complete ? Set(conversations.map(\.id)) : nil, checkedWhole: complete), userID: userID, at: now)
    }

    /// Upserts conversations in one transaction.
    /// - Throws: ``StorageError``.
    public func upsertConversations(_ conversations: [Conversation], at now: Date) throws {
        try write { db in try Self.upsert(conversations, cachedAt: now, db) }
    }

    /// Removes a conversation; its messages go by the cascade. Returns whether it was cached.
    /// The deletion is remembered (``tombstoneKey(of:)``), so a merged archive's older copy
    /// does not bring it back.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func deleteConversation(id: String, at now: Date) throws -> Bool {
        try write { db in
            _ = try SearchRevision.next(db)
            try db.execute(sql: "DELETE FROM conversation WHERE remoteId = ?", arguments: [id])
            let deleted = db.changesCount > 0
            try Self.forgetKeys(of: id, db)
            try Self.markSynced(Self.tombstoneKey(of: id), at: now, db)
            return deleted
        }
    }

    /// The user's cached conversations, most recently updated first, and when the list was last fetched.
    /// - Throws: ``StorageError``.
    public func conversations(userID: String?) throws -> (conversations: [Conversation], syncedAt: Date?) {
        try read { db in
            let rows: [Row]
            if let userID {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM conversation WHERE userId = ? ORDER BY updatedAt DESC, remoteId", arguments: [userID])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM conversation ORDER BY updatedAt DESC, remoteId")
            }
            let synced = try userID.flatMap { try Self.syncedAt("conversations:\($0)", db) }
                ?? rows.map { Date(timeIntervalSince1970: $0["cachedAt"]) }.min()
            return (rows.map(Self.conversation), synced)
        }
    }

    /// One cached conversation.
    public func conversation(id: String) throws -> Conversation? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM conversation WHERE remoteId = ?", arguments: [id]).map(Self.conversation) }
    }

    /// The cached conversations whose id starts with `prefix` (for short ids).
    public func conversations(idPrefix prefix: String, userID: String?) throws -> [Conversation] {
        try read { db in
            let pattern = prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            return try Row.fetchAll(db, sql: """
                SELECT * FROM conversation WHERE remoteId LIKE ? ESCAPE '\\' AND (? IS NULL OR userId = ?) ORDER BY updatedAt DESC
                """, arguments: [pattern.lowercased(), userID, userID]).map(Self.conversation)
        }
    }

    static func upsert(_ conversations: [Conversation], cachedAt: Date, _ db: Database) throws {
        guard !conversations.isEmpty else { return }
        let revision = try SearchRevision.next(db)
        let statement = try db.cachedStatement(sql: """
            INSERT INTO conversation (remoteId, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt, cachedAt, revision)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(remoteId) DO UPDATE SET userId = excluded.userId, title = excluded.title, domain = excluded.domain,
                lastMessageAt = excluded.lastMessageAt, messageCount = excluded.messageCount, createdAt = excluded.createdAt,
                updatedAt = excluded.updatedAt, cachedAt = excluded.cachedAt,
                revision = CASE WHEN title IS excluded.title AND updatedAt IS excluded.updatedAt THEN revision ELSE excluded.revision END
            """)
        let cached = cachedAt.timeIntervalSince1970
        for conversation in conversations {
            try statement.execute(arguments: [
                conversation.id, conversation.userId, Self.stored(conversation.title), conversation.domain,
                conversation.lastMessageAt?.timeIntervalSince1970, conversation.messageCount,
                conversation.createdAt.timeIntervalSince1970, conversation.updatedAt.timeIntervalSince1970, cached, revision,
            ])
        }
    }

    /// A text as the cache stores it: with a NUL, its bytes (a BLOB), as ``upsert(_:cachedAt:_:)``
    /// binds a message's; GRDB would bind and read TEXT as a C string, ending at the NUL.
    static func stored(_ text: String?) -> (any DatabaseValueConvertible)? {
        guard let text else { return nil }
        return text.utf8.contains(0) ? Data(text.utf8) : text
    }

    /// A text column read whole: through its database value (a BLOB's bytes when it holds a NUL),
    /// never through GRDB's fast path for a cursor's row, which reads a C string.
    static func text(_ row: Row, _ column: String) -> String? {
        String.fromDatabaseValue(row[column] as DatabaseValue)
    }

    static func conversation(_ row: Row) -> Conversation {
        Conversation(id: row["remoteId"], userId: row["userId"], title: text(row, "title"), domain: row["domain"],
                     lastMessageAt: (row["lastMessageAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                     messageCount: row["messageCount"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                     updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }
}
