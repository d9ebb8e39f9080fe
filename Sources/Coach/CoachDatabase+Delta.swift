import Foundation
import GRDB

// What a delta refresh needs from the local copy: its newest key (the cursor), its counts and
// ids, one transaction that applies what changed, and reads of only the rows shown.
//
// The cursor is not stored apart from the rows: it is the newest `updatedAt` of the user's
// cached conversations, or the newest `createdAt` of a conversation's cached messages. A
// refresh reads everything at or after it, so the rows below it are exactly the server's as
// of that refresh, and the next one can only move it forward. What the `sync` table keeps is
// whether that holds: a `cursor:` key, written by every full pass (a full listing, or an
// id-only sweep), says when the copy was last checked whole. Without it (first run, after
// `cache import`, which drops these keys, or `cache clear`) a refresh downloads everything.
extension CoachDatabase {
    /// The state a delta refresh of the user's conversation list starts from; `nil` when
    /// there is no trusted copy (then the refresh is a full one).
    public struct DeltaState: Sendable, Equatable {
        /// The newest key held (`updatedAt` or `createdAt`); `nil` when the copy is empty.
        public var cursor: Date?
        /// The rows held.
        public var count: Int
        /// When the copy was last checked whole (a full listing or an id sweep).
        public var checkedAt: Date
    }

    static func cursorKey(conversationsOf userID: String) -> String { "cursor:conversations:\(userID)" }
    static func cursorKey(messagesOf conversationID: String) -> String { "cursor:messages:\(conversationID)" }

    /// Where a refresh of the user's conversation list starts from.
    /// - Throws: ``StorageError``.
    public func conversationsState(userID: String) throws -> DeltaState? {
        try read { db in
            guard let checked = try Self.syncedAt(Self.cursorKey(conversationsOf: userID), db) else { return nil }
            let row = try Row.fetchOne(db, sql: "SELECT MAX(updatedAt) AS newest, COUNT(*) AS count FROM conversation WHERE userId = ?", arguments: [userID])
            return DeltaState(cursor: (row?["newest"] as Double?).map(Date.init(timeIntervalSince1970:)), count: row?["count"] ?? 0, checkedAt: checked)
        }
    }

    /// Where a refresh of a conversation's messages starts from.
    /// - Throws: ``StorageError``.
    public func messagesState(conversationID: String) throws -> DeltaState? {
        try read { db in
            guard let checked = try Self.syncedAt(Self.cursorKey(messagesOf: conversationID), db) else { return nil }
            let row = try Row.fetchOne(db, sql: "SELECT MAX(createdAt) AS newest, COUNT(*) AS count FROM message WHERE conversationId = ?",
                                       arguments: [conversationID])
            return DeltaState(cursor: (row?["newest"] as Double?).map(Date.init(timeIntervalSince1970:)), count: row?["count"] ?? 0, checkedAt: checked)
        }
    }

    /// The ids of the user's cached conversations.
    /// - Throws: ``StorageError``.
    public func conversationIDs(userID: String) throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT remoteId FROM conversation WHERE userId = ?", arguments: [userID])) }
    }

    /// The ids of a conversation's cached messages.
    /// - Throws: ``StorageError``.
    public func messageIDs(conversationID: String) throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversationID])) }
    }

    /// How many messages of a conversation are cached (after upserting `pending`, without writing them).
    /// - Throws: ``StorageError``.
    public func messageCount(conversationID: String, adding pending: [Message]) throws -> Int {
        try read { db in
            let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationId = ?", arguments: [conversationID]) ?? 0
            let ids = Set(pending.map(\.id))
            guard !ids.isEmpty else { return held }
            let known = try Self.existing(ids, table: "message", db)
            return held + ids.count - known
        }
    }

    /// How many of the user's conversations are cached (after upserting `pending`, without writing them).
    /// - Throws: ``StorageError``.
    public func conversationCount(userID: String, adding pending: [Conversation]) throws -> Int {
        try read { db in
            let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation WHERE userId = ?", arguments: [userID]) ?? 0
            let ids = Set(pending.map(\.id))
            guard !ids.isEmpty else { return held }
            return held + ids.count - (try Self.existing(ids, table: "conversation", db))
        }
    }

    /// How many of `ids` a table holds.
    static func existing(_ ids: Set<String>, table: String, _ db: Database) throws -> Int {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM \(table) WHERE remoteId = ?")
        var count = 0
        for id in ids where try Int.fetchOne(statement, arguments: [id]) != nil { count += 1 }
        return count
    }

    /// What one refresh found, applied in one transaction: the changed rows upserted, and,
    /// when the refresh knows the server's whole set of ids (a full listing or a sweep), the
    /// rows outside it removed and the copy marked as checked whole at `now`.
    public struct Changes<Row: Sendable>: Sendable {
        public var upserted: [Row]
        /// Every id the server has, when the refresh listed them; `nil` for a delta.
        public var serverIDs: Set<String>?

        public init(upserted: [Row], serverIDs: Set<String>?) {
            self.upserted = upserted
            self.serverIDs = serverIDs
        }
    }

    /// Applies a refresh of the user's conversation list.
    /// - Throws: ``StorageError``.
    public func apply(_ changes: Changes<Conversation>, userID: String, at now: Date) throws {
        try write { db in
            try Self.upsert(changes.upserted, cachedAt: now, db)
            if let kept = changes.serverIDs {
                let stale = try String.fetchAll(db, sql: "SELECT remoteId FROM conversation WHERE userId = ?", arguments: [userID]).filter { !kept.contains($0) }
                let delete = try db.cachedStatement(sql: "DELETE FROM conversation WHERE remoteId = ?")
                for id in stale {
                    try delete.execute(arguments: [id])
                    try db.execute(sql: "DELETE FROM sync WHERE key IN (?, ?)", arguments: ["messages:\(id)", Self.cursorKey(messagesOf: id)])
                }
                try Self.markSynced(Self.cursorKey(conversationsOf: userID), at: now, db)
            }
            try Self.markSynced("conversations:\(userID)", at: now, db)
        }
    }

    /// Applies a refresh of one conversation and its messages.
    /// - Throws: ``StorageError``.
    public func apply(_ changes: Changes<Message>, of conversation: Conversation, at now: Date) throws {
        try write { db in
            try Self.upsert([conversation], cachedAt: now, db)
            try Self.upsert(changes.upserted, cachedAt: now, db)
            if let kept = changes.serverIDs {
                let stale = try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversation.id])
                    .filter { !kept.contains($0) }
                let delete = try db.cachedStatement(sql: "DELETE FROM message WHERE remoteId = ?")
                for id in stale { try delete.execute(arguments: [id]) }
                try Self.markSynced(Self.cursorKey(messagesOf: conversation.id), at: now, db)
            }
            try Self.markSynced("messages:\(conversation.id)", at: now, db)
        }
    }

    /// The last `last` cached messages of a conversation (all for `nil`) in order of creation,
    /// how many it has, and when they were fetched: a read of what is shown, not of the whole thread.
    /// - Throws: ``StorageError``.
    public func messages(conversationID: String, last: Int?) throws -> (messages: [Message], total: Int, syncedAt: Date?) {
        try read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationId = ?", arguments: [conversationID]) ?? 0
            let rows: [Row]
            if let last {
                rows = try Row.fetchAll(db, sql: """
                    SELECT * FROM (SELECT remoteId, conversationId, role, content, createdAt FROM message
                                   WHERE conversationId = ? ORDER BY createdAt DESC, remoteId DESC LIMIT ?)
                    ORDER BY createdAt, remoteId
                    """, arguments: [conversationID, last])
            } else {
                rows = try Row.fetchAll(db, sql: """
                    SELECT remoteId, conversationId, role, content, createdAt FROM message
                    WHERE conversationId = ? ORDER BY createdAt, remoteId
                    """, arguments: [conversationID])
            }
            return (rows.map(Self.message), total, try Self.syncedAt("messages:\(conversationID)", db))
        }
    }

    /// Drops every `cursor:` key, so the next refresh of each list is a full one (an imported
    /// copy was checked whole by someone else, at another time).
    /// - Throws: ``StorageError``.
    public func forgetCursors() throws { try write(Self.forgetCursors) }

    static func forgetCursors(_ db: Database) throws { try db.execute(sql: "DELETE FROM sync WHERE key LIKE 'cursor:%'") }
}
