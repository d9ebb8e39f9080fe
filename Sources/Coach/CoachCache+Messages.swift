import BradOSCore
import Foundation
import GRDB
import GRDBSQLite

// Messages: saving a conversation's messages (bound through SQLite's C API), reading them back.
extension CoachCache {
    /// Saves one conversation and its messages: upserts and, when the list is complete,
    /// removes the conversation's messages the server no longer has.
    /// - Throws: ``StorageError``.
    public func saveMessages(_ messages: [Message], of conversation: Conversation, at now: Date, complete: Bool = true) throws {
        try apply(Changes(upserted: messages, serverIDs: complete ? Set(messages.map(\.id)) : nil, checkedWhole: complete), of: conversation, at: now)
    }

    /// Upserts messages in one transaction (their conversations must be stored).
    /// - Throws: ``StorageError``.
    public func upsertMessages(_ messages: [Message], at now: Date) throws {
        try write { db in
            try Self.upsert(messages, cachedAt: now, db)
            // The kept counts of these conversations no longer hold: reads count the rows.
            for conversation in Set(messages.map(\.conversationId)) {
                try db.execute(sql: "DELETE FROM sync WHERE key = ?", arguments: [Self.countKey(messagesOf: conversation)])
            }
        }
    }

    /// One cached message (`nil` when not held).
    /// - Throws: ``StorageError``.
    public func message(id: String) throws -> Message? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT remoteId, conversationId, role, content, createdAt FROM message WHERE remoteId = ?",
                             arguments: [id]).map(Self.message)
        }
    }

    /// A conversation's cached messages in order of creation (ties by remote id), and when they were fetched.
    public func messages(conversationID: String) throws -> (messages: [Message], syncedAt: Date?) {
        try read { db in
            let messages = try Row.fetchAll(db, sql: """
                SELECT remoteId, conversationId, role, content, createdAt FROM message
                WHERE conversationId = ? ORDER BY createdAt, remoteId
                """, arguments: [conversationID]).map(Self.message)
            return (messages, try Self.syncedAt("messages:\(conversationID)", db))
        }
    }

    /// Where the store stands: its identity and the revision its last change took
    /// (``SearchRevision``), one row's read.
    /// - Throws: ``StorageError``.
    public func revision() throws -> (origin: String?, revision: Int64) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT store, revision FROM searchRevision WHERE id = 1")
            return (row?["store"], row?["revision"] ?? 0)
        }
    }

    /// What `--follow` compares with what it printed, in one read: the conversation's messages
    /// whose revision is after `revision` (in order of creation), the ids of all its messages,
    /// and where the store stands. `nil` when the conversation is not held.
    /// - Throws: ``StorageError``.
    func followSnapshot(conversationID: String, changedAfter revision: Int64)
        throws -> (origin: String?, revision: Int64, changed: [Message], ids: Set<String>)?
    {
        try read { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM conversation WHERE remoteId = ?", arguments: [conversationID]) == true else { return nil }
            let stand = try Row.fetchOne(db, sql: "SELECT store, revision FROM searchRevision WHERE id = 1")
            let changed = try Row.fetchAll(db, sql: """
                SELECT remoteId, conversationId, role, content, createdAt FROM message
                WHERE conversationId = ? AND revision > ? ORDER BY createdAt, remoteId
                """, arguments: [conversationID, revision]).map(Self.message)
            let ids = Set(try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversationID]))
            return (stand?["store"], stand?["revision"] ?? 0, changed, ids)
        }
    }

    /// Binds each row straight through SQLite's C API: building GRDB's `StatementArguments`
    /// (an array of `DatabaseValue` per row) was the difference between this and python's
    /// `executemany` in `bench/coach_upsert.py`.
    static func upsert(_ messages: [Message], cachedAt: Date, _ db: Database) throws {
        guard !messages.isEmpty else { return }
        // A row whose searchable fields change is marked with this transaction's revision.
        let revision = try SearchRevision.next(db)
        let statement = try db.cachedStatement(sql: """
            INSERT INTO message (remoteId, conversationId, role, content, createdAt, cachedAt, revision) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(remoteId) DO UPDATE SET conversationId = excluded.conversationId, role = excluded.role,
                content = excluded.content, createdAt = excluded.createdAt, cachedAt = excluded.cachedAt,
                revision = CASE WHEN content IS excluded.content AND conversationId IS excluded.conversationId
                    AND createdAt IS excluded.createdAt AND role IS excluded.role THEN revision ELSE excluded.revision END
            """)
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func bind(_ index: Int32, _ text: String) {
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    // An empty buffer may have no address; SQLite needs a pointer for an empty (not NULL) text.
                    // A text holding a NUL as its bytes (a BLOB): GRDB reads TEXT through a C string,
                    // which would end at the NUL; a copied Row reads the BLOB whole as the String.
                    if let base = chars.baseAddress, bytes.contains(0) {
                        _ = sqlite3_bind_blob(handle, index, base, Int32(chars.count), transient)
                    } else if let base = chars.baseAddress {
                        _ = sqlite3_bind_text(handle, index, base, Int32(chars.count), transient)
                    } else {
                        _ = sqlite3_bind_text(handle, index, "", 0, transient)
                    }
                }
            }
        }
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let cached = cachedAt.timeIntervalSince1970
        for message in messages {
            sqlite3_reset(handle)
            bind(1, message.id)
            bind(2, message.conversationId)
            bind(3, message.role.rawValue)
            bind(4, message.content)
            sqlite3_bind_double(handle, 5, message.createdAt.timeIntervalSince1970)
            sqlite3_bind_double(handle, 6, cached)
            sqlite3_bind_int64(handle, 7, revision)
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: statement.sql)
            }
        }
    }

    static func message(_ row: Row) -> Message {
        Message(id: row["remoteId"], conversationId: row["conversationId"], role: MessageRole(rawValue: row["role"]),
                content: text(row, "content") ?? "", createdAt: Date(timeIntervalSince1970: row["createdAt"]))
    }
}
