import BradOSCore
import Foundation
import GRDB

// What a delta refresh needs from the local copy: its cursor, its counts and ids, one
// transaction that applies what a refresh found, and reads of only the rows shown.
//
// The `sync` table keeps, besides when each list was last fetched:
// - `cursor:conversations:<user>`: the newest `updated_at` a *list* refresh has read. It is
//   kept apart from the rows because `coach show` also writes the one conversation it shows,
//   and that row's newer time must not move the list's cursor past changes of others.
// - `checked:conversations:<user>`, `checked:messages:<id>`: when the copy was last checked
//   whole (the whole list downloaded; a conversation's messages swept by id). Without it
//   (first run, after `cache import`, which drops these keys, or `cache clear`) a refresh
//   downloads everything.
// - `count:messages:<id>`: how many messages a conversation holds.
// A conversation's messages never change once written, so their cursor is simply the newest
// `createdAt` held.
extension CoachCache {
    /// What a delta refresh starts from; `nil` when there is no trusted copy (then the
    /// refresh is a full one).
    public struct DeltaState: Sendable, Equatable {
        /// The newest key read (`updated_at` for the list, `created_at` for messages); `nil`
        /// when the copy is empty.
        public var cursor: Date?
        /// When the copy was last checked whole.
        public var checkedAt: Date
    }

    static func cursorKey(conversationsOf userID: String) -> String { "cursor:conversations:\(userID)" }
    static func checkedKey(conversationsOf userID: String) -> String { "checked:conversations:\(userID)" }
    static func checkedKey(messagesOf conversationID: String) -> String { "checked:messages:\(conversationID)" }
    /// When the conversation was deleted here (a merge leaves an older archive's copy out).
    static func tombstoneKey(of conversationID: String) -> String { "deleted:\(conversationID)" }
    /// How many messages a conversation holds, kept by every refresh so that showing the last
    /// N never counts them all (`COUNT(*)` walks the whole index: 6 ms at 100,000).
    static func countKey(messagesOf conversationID: String) -> String { "count:messages:\(conversationID)" }
    /// The newest edit time (`updated_at`) a live catch-up has read of a conversation's messages.
    static func editedKey(messagesOf conversationID: String) -> String { "edited:messages:\(conversationID)" }
    /// Every `sync` key that belongs to one conversation.
    static func keys(of conversationID: String) -> [String] {
        ["messages:\(conversationID)", checkedKey(messagesOf: conversationID), countKey(messagesOf: conversationID), editedKey(messagesOf: conversationID)]
    }

    /// Removes every `sync` key of one conversation (``keys(of:)``).
    static func forgetKeys(of conversationID: String, _ db: Database) throws {
        let keys = Self.keys(of: conversationID)
        try db.execute(sql: "DELETE FROM sync WHERE key IN (\(keys.map { _ in "?" }.joined(separator: ", ")))", arguments: StatementArguments(keys))
    }

    /// Where the next look for edited messages starts (`nil`: every edited message).
    /// - Throws: ``StorageError``.
    public func editCursor(conversationID: String) throws -> Date? {
        try read { db in try Self.syncedAt(Self.editedKey(messagesOf: conversationID), db) }
    }

    /// Saves edited messages (those still held) and moves the edit cursor to `newest`.
    /// - Returns: the messages whose stored copy changed.
    /// - Throws: ``StorageError``.
    public func applyEdits(_ messages: [Message], newest: Date?, at now: Date) throws -> [Message] {
        try write { db in
            var changed: [Message] = []
            for message in messages {
                guard let row = try Row.fetchOne(db, sql: "SELECT remoteId, conversationId, role, content, createdAt FROM message WHERE remoteId = ?",
                                                 arguments: [message.id]), Self.message(row) != message else { continue }
                changed.append(message)
            }
            try Self.upsert(changed, cachedAt: now, db)
            if let newest, let conversation = messages.first?.conversationId {
                try Self.markSynced(Self.editedKey(messagesOf: conversation), at: newest, db)
            }
            return changed
        }
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
            guard let checked = try Self.syncedAt(Self.checkedKey(conversationsOf: userID), db) else { return nil }
            return DeltaState(cursor: try Self.syncedAt(Self.cursorKey(conversationsOf: userID), db), checkedAt: checked)
        }
    }

    /// Where a refresh of a conversation's messages starts from.
    /// - Throws: ``StorageError``.
    public func messagesState(conversationID: String) throws -> DeltaState? {
        try read { db in
            guard let checked = try Self.syncedAt(Self.checkedKey(messagesOf: conversationID), db) else { return nil }
            let newest = try Double.fetchOne(db, sql: "SELECT MAX(createdAt) FROM message WHERE conversationId = ?", arguments: [conversationID])
            return DeltaState(cursor: newest.map(Date.init(timeIntervalSince1970:)), checkedAt: checked)
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
            try Self.count(try Self.heldCount(of: conversationID, db), adding: Set(pending.map(\.id)), table: "message", db)
        }
    }

    /// How many of the user's conversations are cached (after upserting `pending`, without writing them).
    /// - Throws: ``StorageError``.
    public func conversationCount(userID: String, adding pending: [Conversation]) throws -> Int {
        try read { db in
            let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation WHERE userId = ?", arguments: [userID]) ?? 0
            return try Self.count(held, adding: Set(pending.map(\.id)), table: "conversation", db)
        }
    }

    /// `held` rows, plus those of `pending` the table does not hold yet: the count once they are upserted.
    static func count(_ held: Int, adding pending: Set<String>, table: String, _ db: Database) throws -> Int {
        guard !pending.isEmpty else { return held }
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM \(table) WHERE remoteId = ?")
        var known = 0
        for id in pending where try Int.fetchOne(statement, arguments: [id]) != nil { known += 1 }
        return held + pending.count - known
    }

    /// What one refresh found, applied in one transaction: the changed rows upserted, and,
    /// when the refresh knows the server's whole set of ids (a full listing or a sweep), the
    /// rows outside it removed and the copy marked as checked whole at `now`.
    public struct Changes<Row: Sendable>: Sendable {
        public var upserted: [Row]
        /// Ids the refresh found the server no longer has.
        public var deleted: Set<String>
        /// Every id the server has, when the refresh listed them all: every other row goes.
        /// `nil` for a delta.
        public var serverIDs: Set<String>?
        /// Whether the refresh checked the copy whole (the list downloaded whole; a
        /// conversation's messages swept by id): the daily whole check is then done.
        public var checkedWhole: Bool

        public init(upserted: [Row], deleted: Set<String> = [], serverIDs: Set<String>?, checkedWhole: Bool = false) {
            self.upserted = upserted
            self.deleted = deleted
            self.serverIDs = serverIDs
            self.checkedWhole = checkedWhole
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
            if !stale.isEmpty { _ = try SearchRevision.next(db) }
            for id in stale {
                try delete.execute(arguments: [id])
                try Self.forgetKeys(of: id, db)
                try Self.markSynced(Self.tombstoneKey(of: id), at: now, db)
            }
            // The list's cursor moves only here, to the newest time this list refresh read.
            if let newest = changes.upserted.map(\.updatedAt).max(), newest > (try Self.syncedAt(Self.cursorKey(conversationsOf: userID), db) ?? .distantPast) {
                try Self.markSynced(Self.cursorKey(conversationsOf: userID), at: newest, db)
            }
            if changes.checkedWhole { try Self.markSynced(Self.checkedKey(conversationsOf: userID), at: now, db) }
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
            var stale = changes.deleted
            if let kept = changes.serverIDs {
                stale.formUnion(try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversation.id])
                    .filter { !kept.contains($0) })
            }
            if !stale.isEmpty {
                _ = try SearchRevision.next(db)
                for id in stale { try delete.execute(arguments: [id, conversation.id]) }
            }
            if changes.checkedWhole { try Self.markSynced(Self.checkedKey(messagesOf: conversation.id), at: now, db) }
            try Self.rememberCount(of: conversation.id, db)
            try Self.markSynced("messages:\(conversation.id)", at: now, db)
        }
    }

    /// The last `last` cached messages of a conversation in order of creation, how many it
    /// has, and when they were fetched: a read of what is shown, not of the whole thread
    /// (``forEachMessage(conversationID:batchSize:_:)`` reads all of them as they are shown).
    /// - Throws: ``StorageError``.
    public func messages(conversationID: String, last: Int) throws -> (messages: [Message], total: Int, syncedAt: Date?) {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM (SELECT remoteId, conversationId, role, content, createdAt FROM message
                               WHERE conversationId = ? ORDER BY createdAt DESC, remoteId DESC LIMIT ?)
                ORDER BY createdAt, remoteId
                """, arguments: [conversationID, last])
            return (rows.map(Self.message), try Self.heldCount(of: conversationID, db), try Self.syncedAt("messages:\(conversationID)", db))
        }
    }

    /// The messages around one of a conversation's (`messageID`, a full id or the start of
    /// one, at least 4 characters): up to `context` before it, it, and up to `context` after,
    /// in order; how many come before and after those; and when they were fetched. A read of
    /// what is shown, through the (conversation, time) index, however long the thread.
    /// - Throws: ``CoachError/messageNotFound(id:conversation:)``, ``CoachError/ambiguousMessageID(prefix:count:)``, ``StorageError``.
    public func messages(conversationID: String, around messageID: String, context: Int)
        throws -> (messages: [Message], marked: String, before: Int, after: Int, syncedAt: Date?) {
        let prefix = messageID.lowercased()
        let found: [Row] = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT remoteId, createdAt FROM message WHERE conversationId = ? AND (remoteId = ? OR (length(?) >= 4 AND substr(remoteId, 1, length(?)) = ?))
                LIMIT 2
                """, arguments: [conversationID, prefix, prefix, prefix, prefix])
        }
        let exact = found.first { ($0[0] as String) == prefix }
        guard let target = exact ?? found.first else { throw CoachError.messageNotFound(id: messageID, conversation: conversationID) }
        if exact == nil, found.count > 1 { throw CoachError.ambiguousMessageID(prefix: messageID) }
        let id: String = target[0], at: Double = target[1]
        return try read { db in
            let earlier = try Row.fetchAll(db, sql: """
                SELECT remoteId, conversationId, role, content, createdAt FROM message
                WHERE conversationId = ? AND (createdAt < ? OR (createdAt = ? AND remoteId < ?))
                ORDER BY createdAt DESC, remoteId DESC LIMIT ?
                """, arguments: [conversationID, at, at, id, context]).map(Self.message).reversed()
            let later = try Row.fetchAll(db, sql: """
                SELECT remoteId, conversationId, role, content, createdAt FROM message
                WHERE conversationId = ? AND (createdAt > ? OR (createdAt = ? AND remoteId >= ?))
                ORDER BY createdAt, remoteId LIMIT ?
                """, arguments: [conversationID, at, at, id, context + 1]).map(Self.message)
            let before = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM message WHERE conversationId = ? AND (createdAt < ? OR (createdAt = ? AND remoteId < ?))
                """, arguments: [conversationID, at, at, id]) ?? 0
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM message WHERE conversationId = ?", arguments: [conversationID]) ?? 0
            let shown = Array(earlier) + later
            return (shown, id, before - earlier.count, max(0, total - before - later.count), try Self.syncedAt("messages:\(conversationID)", db))
        }
    }

    /// How many messages of a conversation are held, and when they were fetched.
    /// - Throws: ``StorageError``.
    /// The bytes of message text held, every conversation's (what `coach.sync-budget` limits).
    public func messageBytes() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT coalesce(sum(length(CAST(content AS BLOB))), 0) FROM message") ?? 0 }
    }

    public func messageCount(conversationID: String) throws -> (total: Int, syncedAt: Date?) {
        try read { db in (try Self.heldCount(of: conversationID, db), try Self.syncedAt("messages:\(conversationID)", db)) }
    }

    /// Every cached message of a conversation in order of creation, `batchSize` at a time, in
    /// one read transaction.
    /// - Throws: ``StorageError``, or what `body` throws.
    public func forEachMessage(conversationID: String, batchSize: Int = 512, _ body: ([Message]) throws -> Void) throws {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT remoteId, conversationId, role, content, createdAt FROM message
                WHERE conversationId = ? ORDER BY createdAt, remoteId
                """, arguments: [conversationID])
            var batch: [Message] = []
            batch.reserveCapacity(batchSize)
            while let row = try rows.next() {
                batch.append(Self.message(row))
                if batch.count == batchSize { try body(batch); batch.removeAll(keepingCapacity: true) }
            }
            if !batch.isEmpty { try body(batch) }
        }
    }

    /// Drops every `cursor:`, `checked:` and `count:` key: the next refresh of each list is a
    /// full one (an imported copy was checked whole by someone else, at another time), and
    /// counts are taken from the rows until then (an archive's numbers are not trusted).
    static func forgetCursors(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM sync WHERE key LIKE 'cursor:%' OR key LIKE 'checked:%' OR key LIKE 'count:%' OR key LIKE 'edited:%'")
    }
}
