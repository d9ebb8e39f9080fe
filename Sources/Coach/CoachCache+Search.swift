import BradOSCore
import BradOSStorage
import Foundation
import GRDB

// Search documents: conversation titles and message text, sent by what changed after the
// index's revision (`SearchRevision`).
extension CoachCache {
    /// Sends the documents the search index lacks (see ``SearchFeed``), from one read.
    /// - Throws: ``StorageError``; the feed's errors.
    /// Read-only (a search writes nothing to the store): a store of an older schema is
    /// migrated first.
    public static func feedSearch(at url: URL, _ feed: SearchFeed) throws {
        try feed.sendChanges(at: url, migrate: { _ = try CoachCache(url: url) }, changed: { db, after in
            let conversations = try Row.fetchCursor(db, sql: "SELECT remoteId, title, updatedAt FROM conversation WHERE revision > ?", arguments: [after])
            while let row = try conversations.next() {
                let id: String = row[0]
                try feed.add(SearchDocument(key: "conversation:" + id, title: Self.text(row, "title") ?? "Untitled conversation", body: "",
                                            date: Date(timeIntervalSince1970: row[2]), command: "brados coach show \(id)"))
            }
            let messages = try Row.fetchCursor(db, sql: "SELECT remoteId, conversationId, content, createdAt FROM message WHERE revision > ?",
                                               arguments: [after])
            while let row = try messages.next() {
                // The message in its place: `coach show --message` opens the conversation there.
                try feed.add(SearchDocument(key: "message:" + (row[0] as String), title: "", body: Self.text(row, "content") ?? "",
                                            date: Date(timeIntervalSince1970: row[3]), command: "brados coach show \(row[1] as String) --message {id}"))
            }
        }, count: { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM conversation) + (SELECT count(*) FROM message)") ?? 0
        }, keys: { db in
            try String.fetchSet(db, sql: "SELECT 'conversation:' || remoteId FROM conversation UNION ALL SELECT 'message:' || remoteId FROM message")
        })
    }
}

// `brados today`: the conversation updated last, read alone.
extension CoachCache {
    /// The user's conversation updated last (any user's when `userID` is `nil`), how many
    /// conversations are cached, and its last message: three small queries on one read-only
    /// connection (no migration, nothing written).
    /// - Throws: ``StorageError``.
    public static func latest(at url: URL, userID: String?) throws -> (conversation: Conversation, conversations: Int, last: Message?)? {
        let user: [String?] = [userID, userID]
        let found = try SQLiteQuery.rows(url, [
            ("""
             SELECT remoteId, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt FROM conversation
             WHERE (?1 IS NULL OR userId = ?2) ORDER BY updatedAt DESC, remoteId LIMIT 1
             """, user),
            ("SELECT count(*) FROM conversation WHERE (?1 IS NULL OR userId = ?2)", user),
            ("""
             SELECT remoteId, role, content, createdAt FROM message WHERE conversationId = (
                 SELECT remoteId FROM conversation WHERE (?1 IS NULL OR userId = ?2) ORDER BY updatedAt DESC, remoteId LIMIT 1)
             ORDER BY createdAt DESC, remoteId DESC LIMIT 1
             """, user),
        ])
        guard let row = found[0].first, let id = row[0].text else { return nil }
        let conversation = Conversation(id: id, userId: row[1].text ?? "", title: row[2].text, domain: row[3].text,
                                        lastMessageAt: row[4].double.map(Date.init(timeIntervalSince1970:)), messageCount: row[5].integer ?? 0,
                                        createdAt: Date(timeIntervalSince1970: row[6].double ?? 0), updatedAt: Date(timeIntervalSince1970: row[7].double ?? 0))
        let last = found[2].first.map { message in
            Message(id: message[0].text ?? "", conversationId: id, role: MessageRole(rawValue: message[1].text ?? ""),
                    content: message[2].text ?? "", createdAt: Date(timeIntervalSince1970: message[3].double ?? 0))
        }
        return (conversation, found[1].first?.first?.integer ?? 0, last)
    }
}
