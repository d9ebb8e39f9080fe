import BradOSCore
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
    /// How many messages a conversation holds, kept by every refresh so that showing the last
    /// N never counts them all (`COUNT(*)` walks the whole index: 6 ms at 100,000).
    static func countKey(messagesOf conversationID: String) -> String { "count:messages:\(conversationID)" }
    /// Every `sync` key that belongs to one conversation.
    static func keys(of conversationID: String) -> [String] {
        ["messages:\(conversationID)", cursorKey(messagesOf: conversationID), countKey(messagesOf: conversationID)]
    }

    /// The messages a conversation holds: the kept count, else counted.
    static func heldCount(of conversationID: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT CAST(syncedAt AS INTEGER) FROM sync WHERE key = ?", arguments: [countKey(messagesOf: conversationID)])
            ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationId = ?", arguments: [conversationID]) ?? 0
    }

    static func rememberCount(of conversationID: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO sync (key, syncedAt) VALUES (?, (SELECT COUNT(*) FROM message WHERE conversationId = ?))
            ON CONFLICT(key) DO UPDATE SET syncedAt = excluded.syncedAt
            """, arguments: [countKey(messagesOf: conversationID), conversationID])
    }

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
            let newest = try Double.fetchOne(db, sql: "SELECT MAX(createdAt) FROM message WHERE conversationId = ?", arguments: [conversationID])
            return DeltaState(cursor: newest.map(Date.init(timeIntervalSince1970:)), count: try Self.heldCount(of: conversationID, db), checkedAt: checked)
        }
    }

    /// The ids of the user's cached conversations.
    /// - Throws: ``StorageError``.
    public func conversationIDs(userID: String) throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT remoteId FROM conversation WHERE userId = ?", arguments: [userID])) }
    }

    /// `createdAt` within a range, for SQL (the arguments: from, from, to, to).
    static let inRange = "(? IS NULL OR createdAt >= ?) AND (? IS NULL OR createdAt < ?)"
    static func bounds(_ range: TimeRange) -> StatementArguments {
        let from = range.lower?.timeIntervalSince1970, to = range.upper?.timeIntervalSince1970
        return [from, from, to, to]
    }

    /// The ids of a conversation's cached messages created in `range`.
    /// - Throws: ``StorageError``.
    public func messageIDs(conversationID: String, in range: TimeRange = .all) throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ? AND \(Self.inRange)",
                                    arguments: [conversationID] + Self.bounds(range)))
        }
    }

    /// How many of a conversation's cached messages were created in `range`.
    /// - Throws: ``StorageError``.
    public func messageCount(conversationID: String, in range: TimeRange) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationId = ? AND \(Self.inRange)",
                             arguments: [conversationID] + Self.bounds(range)) ?? 0
        }
    }

    /// A creation time that splits the cached messages of `range` into two non-empty halves
    /// (about the median); `nil` when they all share one time.
    /// - Throws: ``StorageError``.
    public func middleTime(conversationID: String, in range: TimeRange) throws -> Date? {
        try read { db in
            let arguments: StatementArguments = [conversationID] + Self.bounds(range)
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationId = ? AND \(Self.inRange)", arguments: arguments) ?? 0
            guard count > 1, let lowest = try Double.fetchOne(db, sql: "SELECT MIN(createdAt) FROM message WHERE conversationId = ? AND \(Self.inRange)",
                                                             arguments: arguments),
                  let median = try Double.fetchOne(db, sql: """
                      SELECT createdAt FROM message WHERE conversationId = ? AND \(Self.inRange) ORDER BY createdAt LIMIT 1 OFFSET ?
                      """, arguments: arguments + [count / 2])
            else { return nil }
            if median > lowest { return Date(timeIntervalSince1970: median) }
            // More than half share the lowest time: split just after it.
            return try Double.fetchOne(db, sql: "SELECT MIN(createdAt) FROM message WHERE conversationId = ? AND \(Self.inRange) AND createdAt > ?",
                                       arguments: arguments + [lowest]).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// How many messages of a conversation are cached (after upserting `pending`, without writing them).
    /// - Throws: ``StorageError``.
    public func messageCount(conversationID: String, adding pending: [Message]) throws -> Int {
        try read { db in
            let held = try Self.heldCount(of: conversationID, db)
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
        /// Ids the refresh found the server no longer has.
        public var deleted: Set<String>
        /// Every id the server has, when the refresh listed them all: every other row goes,
        /// and the copy is marked as checked whole. `nil` for a delta.
        public var serverIDs: Set<String>?

        public init(upserted: [Row], deleted: Set<String> = [], serverIDs: Set<String>?) {
            self.upserted = upserted
            self.deleted = deleted
            self.serverIDs = serverIDs
        }
    }

    /// Applies a refresh of the user's conversation list.
    /// - Throws: ``StorageError``.
    public func apply(_ changes: Changes<Conversation>, userID: String, at now: Date) throws {
        try write { db in
            try Self.upsert(changes.upserted, cachedAt: now, db)
            let delete = try db.cachedStatement(sql: "DELETE FROM conversation WHERE remoteId = ?")
            var stale = changes.deleted
            if let kept = changes.serverIDs {
                stale.formUnion(try String.fetchAll(db, sql: "SELECT remoteId FROM conversation WHERE userId = ?", arguments: [userID]).filter { !kept.contains($0) })
            }
            do {
                for id in stale {
                    try delete.execute(arguments: [id])
                    try db.execute(sql: "DELETE FROM sync WHERE key IN (?, ?, ?)", arguments: StatementArguments(Self.keys(of: id)))
                }
            }
            if changes.serverIDs != nil { try Self.markSynced(Self.cursorKey(conversationsOf: userID), at: now, db) }
            try Self.markSynced("conversations:\(userID)", at: now, db)
        }
    }

    /// Applies a refresh of one conversation and its messages.
    /// - Throws: ``StorageError``.
    public func apply(_ changes: Changes<Message>, of conversation: Conversation, at now: Date) throws {
        try write { db in
            try Self.upsert([conversation], cachedAt: now, db)
            try Self.upsert(changes.upserted, cachedAt: now, db)
            let delete = try db.cachedStatement(sql: "DELETE FROM message WHERE remoteId = ? AND conversationId = ?")
            for id in changes.deleted { try delete.execute(arguments: [id, conversation.id]) }
            if let kept = changes.serverIDs {
                let stale = try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversation.id])
                    .filter { !kept.contains($0) }
                for id in stale { try delete.execute(arguments: [id, conversation.id]) }
                try Self.markSynced(Self.cursorKey(messagesOf: conversation.id), at: now, db)
            }
            try Self.rememberCount(of: conversation.id, db)
            try Self.markSynced("messages:\(conversation.id)", at: now, db)
        }
    }

    /// The last `last` cached messages of a conversation (all for `nil`) in order of creation,
    /// how many it has, and when they were fetched: a read of what is shown, not of the whole thread.
    /// - Throws: ``StorageError``.
    public func messages(conversationID: String, last: Int?) throws -> (messages: [Message], total: Int, syncedAt: Date?) {
        try read { db in
            let total = try Self.heldCount(of: conversationID, db)
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

    /// Drops every `cursor:` and `count:` key: the next refresh of each list is a full one (an
    /// imported copy was checked whole by someone else, at another time), and counts are
    /// taken from the rows until then (an archive's numbers are not trusted).
    /// - Throws: ``StorageError``.
    public func forgetCursors() throws { try write(Self.forgetCursors) }

    static func forgetCursors(_ db: Database) throws { try db.execute(sql: "DELETE FROM sync WHERE key LIKE 'cursor:%' OR key LIKE 'count:%'") }
}
