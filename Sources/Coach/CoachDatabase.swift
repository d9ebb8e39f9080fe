import BradOSCore
import Foundation
import GRDB
import GRDBSQLite
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The coach's local store: one SQLite database per profile (`<data>/coach/coach.sqlite`,
/// WAL), migrated with `DatabaseMigrator`.
///
/// - `conversation`: remote id UNIQUE, user id, title, domain, last message at, message
///   count, created/updated at, cached at.
/// - `message`: remote id UNIQUE, conversation id → `conversation(remoteId)` ON DELETE
///   CASCADE, role (text), content, created at, cached at.
/// - `contextProfile`: remote id UNIQUE, user id UNIQUE, values/goals/situation (JSON), cached at.
/// - `sync`: when each list was last fetched in full (the age shown offline).
///
/// Every write is one transaction of upserts by remote id (`INSERT … ON CONFLICT DO UPDATE`,
/// never `INSERT OR REPLACE`, which would delete the row and cascade its messages away).
/// Dates are stored as Unix seconds (REAL), exact to the microsecond. Thread-safe, and
/// safe with several processes (SQLite locking, 30 s busy timeout).
public final class CoachDatabase: Sendable {
    public let url: URL
    let pool: DatabasePool

    /// Opens (creating and migrating) the database. A file that is not a readable SQLite
    /// database is moved aside to `coach.sqlite.corrupt` and a new one is started: the
    /// server holds the data, so nothing is lost that a fetch cannot bring back.
    /// - Throws: ``StorageError``.
    public init(url: URL, logger: Logger = Logger(label: "brados.coach")) throws {
        self.url = url
        do {
            pool = try Self.openPool(url)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode.primaryResultCode) {
            logger.warning("the coach cache \(url.path) is damaged; it was moved to \(url.lastPathComponent).corrupt and is rebuilt from the server")
            let aside = url.appendingPathExtension("corrupt")
            try? FileSystem.remove(aside)
            rename(url.path, aside.path)
            for suffix in ["-wal", "-shm"] { unlink(url.path + suffix) }
            do { pool = try Self.openPool(url) } catch { throw Self.storageError(error, url) }
        } catch {
            throw Self.storageError(error, url)
        }
    }

    private static func openPool(_ url: URL) throws -> DatabasePool {
        try SQLiteStore.open(url, migrator: migrator)
    }

    /// Rebuilds an imported `coach.sqlite` (see ``SQLiteRebuild``): the schema must be exactly
    /// what ``migrator`` creates, and every row is checked as the decoders check it (ids in
    /// their character sets, numbers, the context profile's JSON).
    /// - Throws: ``ArchiveError/unsafeEntry(path:reason:)``.
    public static func rebuildImported(_ url: URL, label: String) throws {
        typealias Problem = SQLiteRebuild.RowProblem
        let user = IdentifierRule.token("user id")
        try SQLiteRebuild.rebuild(url, label: label, migrator: migrator, tables: [
            .init("conversation", columns: ["remoteId", "userId", "title", "domain", "lastMessageAt", "messageCount", "createdAt", "updatedAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: Conversation.idRule)
                try ColumnCheck.text(v[1], "userId", rule: user)
                try ColumnCheck.text(v[2], "title", nullable: true)
                try ColumnCheck.text(v[3], "domain", nullable: true)
                try ColumnCheck.real(v[4], "lastMessageAt", nullable: true)
                try ColumnCheck.integer(v[5], "messageCount")
                for index in 6...8 { try ColumnCheck.real(v[index], "a date") }
            },
            .init("message", columns: ["remoteId", "conversationId", "role", "content", "createdAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: Message.idRule)
                try ColumnCheck.text(v[1], "conversationId", rule: Conversation.idRule)
                try ColumnCheck.text(v[2], "role")
                try ColumnCheck.text(v[3], "content")
                try ColumnCheck.real(v[4], "createdAt")
                try ColumnCheck.real(v[5], "cachedAt")
            },
            .init("contextProfile", columns: ["remoteId", "userId", "valuesJSON", "goalsJSON", "situationJSON", "createdAt", "updatedAt", "cachedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "remoteId", rule: IdentifierRule.token("context profile id"))
                try ColumnCheck.text(v[1], "userId", rule: user)
                try ColumnCheck.json(v[2], "valuesJSON", as: [ContextProfile.Value].self)
                try ColumnCheck.json(v[3], "goalsJSON", as: [ContextProfile.Goal].self)
                try ColumnCheck.json(v[4], "situationJSON", as: ContextProfile.Situation.self)
                try ColumnCheck.real(v[5], "createdAt", nullable: true)
                try ColumnCheck.real(v[6], "updatedAt", nullable: true)
                try ColumnCheck.real(v[7], "cachedAt")
            },
            .init("sync", columns: ["key", "syncedAt"]) { v throws(Problem) in
                try ColumnCheck.text(v[0], "key")
                try ColumnCheck.real(v[1], "syncedAt")
            },
        ])
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
        return migrator
    }

    // MARK: - Writes

    /// Saves the user's conversation list: upserts every row and, when the list is complete,
    /// removes the user's conversations the server no longer has (their messages go by the cascade).
    /// - Throws: ``StorageError``.
    public func saveConversations(_ conversations: [Conversation], userID: String, at now: Date, complete: Bool = true) throws {
        try write { db in
            try Self.upsert(conversations, cachedAt: now, db)
            if complete {
                let kept = Set(conversations.map(\.id))
                let stale = try String.fetchAll(db, sql: "SELECT remoteId FROM conversation WHERE userId = ?", arguments: [userID])
                    .filter { !kept.contains($0) }
                let delete = try db.cachedStatement(sql: "DELETE FROM conversation WHERE remoteId = ?")
                for id in stale { try delete.execute(arguments: [id]) }
            }
            try Self.markSynced("conversations:\(userID)", at: now, db)
        }
    }

    /// Saves one conversation and its messages: upserts and, when the list is complete,
    /// removes the conversation's messages the server no longer has.
    /// - Throws: ``StorageError``.
    public func saveMessages(_ messages: [Message], of conversation: Conversation, at now: Date, complete: Bool = true) throws {
        try write { db in
            try Self.upsert([conversation], cachedAt: now, db)
            try Self.upsert(messages, cachedAt: now, db)
            if complete {
                let kept = Set(messages.map(\.id))
                let stale = try String.fetchAll(db, sql: "SELECT remoteId FROM message WHERE conversationId = ?", arguments: [conversation.id])
                    .filter { !kept.contains($0) }
                let delete = try db.cachedStatement(sql: "DELETE FROM message WHERE remoteId = ?")
                for id in stale { try delete.execute(arguments: [id]) }
            }
            try Self.markSynced("messages:\(conversation.id)", at: now, db)
        }
    }

    /// Upserts messages in one transaction (their conversations must be stored).
    /// - Throws: ``StorageError``.
    public func upsertMessages(_ messages: [Message], at now: Date) throws {
        try write { db in try Self.upsert(messages, cachedAt: now, db) }
    }

    /// Upserts conversations in one transaction.
    /// - Throws: ``StorageError``.
    public func upsertConversations(_ conversations: [Conversation], at now: Date) throws {
        try write { db in try Self.upsert(conversations, cachedAt: now, db) }
    }

    /// Saves the context profile.
    /// - Throws: ``StorageError``.
    public func saveContextProfile(_ profile: ContextProfile, at now: Date) throws {
        let values = try JSONCoding.encode(profile.values)
        let goals = try JSONCoding.encode(profile.goals)
        let situation = try JSONCoding.encode(profile.situation)
        try write { db in
            // One profile per user: a new remote id for the same user replaces the old row.
            try db.execute(sql: "DELETE FROM contextProfile WHERE userId = ? AND remoteId <> ?", arguments: [profile.userId, profile.id])
            try db.execute(sql: """
                INSERT INTO contextProfile (remoteId, userId, valuesJSON, goalsJSON, situationJSON, createdAt, updatedAt, cachedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(remoteId) DO UPDATE SET userId = excluded.userId, valuesJSON = excluded.valuesJSON,
                    goalsJSON = excluded.goalsJSON, situationJSON = excluded.situationJSON, createdAt = excluded.createdAt,
                    updatedAt = excluded.updatedAt, cachedAt = excluded.cachedAt
                """, arguments: [profile.id, profile.userId, String(decoding: values, as: UTF8.self), String(decoding: goals, as: UTF8.self),
                                 String(decoding: situation, as: UTF8.self), profile.createdAt?.timeIntervalSince1970,
                                 profile.updatedAt?.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    /// Records that the user has no context profile on the server (so the hour of freshness applies to "none" too).
    public func markNoContextProfile(userID: String, at now: Date) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM contextProfile WHERE userId = ?", arguments: [userID])
            try Self.markSynced("context:\(userID)", at: now, db)
        }
    }

    /// Removes a conversation; its messages go by the cascade. Returns whether it was cached.
    /// - Throws: ``StorageError``.
    @discardableResult
    public func deleteConversation(id: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM conversation WHERE remoteId = ?", arguments: [id])
            let deleted = db.changesCount > 0
            try db.execute(sql: "DELETE FROM sync WHERE key = ?", arguments: ["messages:\(id)"])
            return deleted
        }
    }

    /// Removes every row (the file stays; `auth logout` removes the whole folder).
    /// - Throws: ``StorageError``.
    public func removeAll() throws {
        try write { db in
            for table in ["message", "conversation", "contextProfile", "sync"] { try db.execute(sql: "DELETE FROM \(table)") }
        }
    }

    // MARK: - Reads

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

    /// The cached context profile and when it was fetched (`profile` is nil when the server had none).
    public func contextProfile(userID: String) throws -> (profile: ContextProfile?, cachedAt: Date)? {
        try read { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM contextProfile WHERE userId = ?", arguments: [userID]) {
                let profile = ContextProfile(
                    id: row["remoteId"], userId: row["userId"],
                    values: (try? JSONCoding.decode([ContextProfile.Value].self, from: Data((row["valuesJSON"] as String).utf8))) ?? [],
                    goals: (try? JSONCoding.decode([ContextProfile.Goal].self, from: Data((row["goalsJSON"] as String).utf8))) ?? [],
                    situation: (try? JSONCoding.decode(ContextProfile.Situation.self, from: Data((row["situationJSON"] as String).utf8)))
                        ?? ContextProfile.Situation(),
                    createdAt: (row["createdAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    updatedAt: (row["updatedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
                return (profile, Date(timeIntervalSince1970: row["cachedAt"]))
            }
            return try Self.syncedAt("context:\(userID)", db).map { (nil, $0) }
        }
    }

    /// Row counts, for `cache stats`-style reports and tests.
    public func counts() throws -> (conversations: Int, messages: Int, contextProfiles: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contextProfile") ?? 0)
        }
    }

    // MARK: - Internals

    static func upsert(_ conversations: [Conversation], cachedAt: Date, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO conversation (remoteId, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt, cachedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(remoteId) DO UPDATE SET userId = excluded.userId, title = excluded.title, domain = excluded.domain,
                lastMessageAt = excluded.lastMessageAt, messageCount = excluded.messageCount, createdAt = excluded.createdAt,
                updatedAt = excluded.updatedAt, cachedAt = excluded.cachedAt
            """)
        let cached = cachedAt.timeIntervalSince1970
        for conversation in conversations {
            try statement.execute(arguments: [
                conversation.id, conversation.userId, conversation.title, conversation.domain,
                conversation.lastMessageAt?.timeIntervalSince1970, conversation.messageCount,
                conversation.createdAt.timeIntervalSince1970, conversation.updatedAt.timeIntervalSince1970, cached,
            ])
        }
    }

    /// Binds each row straight through SQLite's C API: building GRDB's `StatementArguments`
    /// (an array of `DatabaseValue` per row) was the difference between this and python's
    /// `executemany` in `bench/coach_upsert.py`.
    static func upsert(_ messages: [Message], cachedAt: Date, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO message (remoteId, conversationId, role, content, createdAt, cachedAt) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(remoteId) DO UPDATE SET conversationId = excluded.conversationId, role = excluded.role,
                content = excluded.content, createdAt = excluded.createdAt, cachedAt = excluded.cachedAt
            """)
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func bind(_ index: Int32, _ text: String) {
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    // An empty buffer may have no address; SQLite needs a pointer for an empty (not NULL) text.
                    if let base = chars.baseAddress {
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
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: statement.sql)
            }
        }
    }

    static func markSynced(_ key: String, at now: Date, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO sync (key, syncedAt) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET syncedAt = excluded.syncedAt",
                       arguments: [key, now.timeIntervalSince1970])
    }

    static func syncedAt(_ key: String, _ db: Database) throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT syncedAt FROM sync WHERE key = ?", arguments: [key]).map(Date.init(timeIntervalSince1970:))
    }

    static func conversation(_ row: Row) -> Conversation {
        Conversation(id: row["remoteId"], userId: row["userId"], title: row["title"], domain: row["domain"],
                     lastMessageAt: (row["lastMessageAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                     messageCount: row["messageCount"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                     updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }

    static func message(_ row: Row) -> Message {
        Message(id: row["remoteId"], conversationId: row["conversationId"], role: MessageRole(rawValue: row["role"]),
                content: row["content"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch { throw Self.storageError(error, url) }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch { throw Self.storageError(error, url) }
    }

    static func storageError(_ error: any Error, _ url: URL) -> any Error {
        if let error = error as? DatabaseError { return StorageError.database(error, path: url.path) }
        return error
    }
}
