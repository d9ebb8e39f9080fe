import BradOSCore
import BradOSStorage
@testable import Coach
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Coach store: SQLite, upserts by remote id, cascade delete")
struct CoachCacheTests {
    @Test("migrating an empty file creates the schema; reopening keeps the rows")
    func migrationFromEmpty() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        #expect(try database.counts() == (0, 0, 0))
        try database.saveConversations([Fixtures.conversation(1)], userID: Fixtures.user, at: Fixtures.base)
        let reopened = try Fixtures.database(dir)
        #expect(try reopened.counts().conversations == 1)
        let mode = try FileManager.default.attributesOfItem(atPath: database.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("saving the same data twice never duplicates a row")
    func upsertIsIdempotent() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        let conversation = Fixtures.conversation(1, messages: 50)
        for _ in 0..<2 {
            try database.saveConversations([conversation, Fixtures.conversation(2)], userID: Fixtures.user, at: Fixtures.base)
            try database.saveMessages(Fixtures.messages(1, count: 50), of: conversation, at: Fixtures.base)
            try database.upsertMessages(Fixtures.messages(1, count: 50), at: Fixtures.base)
            try database.saveContextProfile(Fixtures.profile, at: Fixtures.base)
        }
        #expect(try database.counts() == (2, 50, 1))
        // An update by remote id changes the row in place.
        var renamed = conversation
        renamed.title = "Renamed"
        try database.upsertConversations([renamed], at: Fixtures.base)
        #expect(try database.conversation(id: conversation.id)?.title == "Renamed")
        #expect(try database.counts() == (2, 50, 1))
    }

    @Test("remote ids are unique, and messages need their conversation (foreign key)")
    func constraints() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        try database.saveConversations([Fixtures.conversation(1)], userID: Fixtures.user, at: Fixtures.base)
        #expect(throws: (any Error).self) {
            try database.pool.write { db in
                try db.execute(sql: """
                    INSERT INTO conversation (remoteId, userId, messageCount, createdAt, updatedAt, cachedAt) VALUES (?, 'u', 0, 0, 0, 0)
                    """, arguments: [Fixtures.conversationID(1)])
            }
        }
        #expect(throws: StorageError.self) { try database.upsertMessages(Fixtures.messages(9, count: 1), at: Fixtures.base) }
        #expect(try database.counts() == (1, 0, 0))
    }

    @Test("messages come back in order of creation, ties broken by id, whatever the insertion order")
    func ordering() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        let conversation = Fixtures.conversation(1)
        var messages = Fixtures.messages(1, count: 6)
        messages[4].createdAt = messages[3].createdAt // a tie
        messages[5].createdAt = messages[0].createdAt.addingTimeInterval(0.000_001) // a microsecond apart
        try database.saveMessages(messages.reversed(), of: conversation, at: Fixtures.base)
        let stored = try database.messages(conversationID: conversation.id).messages
        let expected = messages.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        #expect(stored.map(\.id) == expected.map(\.id))
        #expect(stored.map(\.id) == [0, 5, 1, 2, 3, 4].map { Fixtures.messageID(1, $0) })
        // Conversations: most recently updated first.
        try database.saveConversations([Fixtures.conversation(1, updated: 10), Fixtures.conversation(2, updated: 30), Fixtures.conversation(3, updated: 20)],
                                       userID: Fixtures.user, at: Fixtures.base)
        #expect(try database.conversations(userID: Fixtures.user).conversations.map(\.id) == [2, 3, 1].map(Fixtures.conversationID))
    }

    @Test("model ↔ row round trip keeps every field, microseconds and nils included")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        var conversation = Fixtures.conversation(1)
        conversation.title = nil
        conversation.domain = nil
        conversation.lastMessageAt = nil
        conversation.updatedAt = Date(timeIntervalSince1970: 1_800_000_123.456789)
        let messages = [Message(id: Fixtures.messageID(1, 0), conversationId: conversation.id, role: MessageRole(rawValue: "system"),
                                content: "multi\nline ✓", createdAt: Date(timeIntervalSince1970: 1_800_000_000.000_001)),
                        Message(id: Fixtures.messageID(1, 1), conversationId: conversation.id, role: .assistant, content: "",
                                createdAt: Date(timeIntervalSince1970: 1_800_000_001))]
        try database.saveMessages(messages, of: conversation, at: Fixtures.base)
        let stored = try #require(try database.conversation(id: conversation.id))
        #expect(stored.title == nil && stored.domain == nil && stored.lastMessageAt == nil)
        #expect(abs(stored.updatedAt.timeIntervalSince1970 - 1_800_000_123.456789) < 1e-6)
        let stored2 = try database.messages(conversationID: conversation.id).messages
        #expect(stored2.last?.content == "" && stored2.last?.role == .assistant) // empty text, not NULL
        let message = try #require(stored2.first)
        #expect(message.role.rawValue == "system" && message.content == "multi\nline ✓")
        #expect(abs(message.createdAt.timeIntervalSince1970 - 1_800_000_000.000_001) < 1e-6)
        try database.saveContextProfile(Fixtures.profile, at: Fixtures.base)
        let profile = try #require(try database.contextProfile(userID: Fixtures.user))
        #expect(profile.profile == Fixtures.profile)
        #expect(profile.cachedAt == Fixtures.base)
    }

    @Test("deleting a conversation removes its messages by the cascade; re-saving a conversation keeps them")
    func cascadeDelete() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        try database.saveMessages(Fixtures.messages(1, count: 10), of: Fixtures.conversation(1), at: Fixtures.base)
        try database.saveMessages(Fixtures.messages(2, count: 5), of: Fixtures.conversation(2), at: Fixtures.base)
        // An upsert must not delete and re-insert the row (that would cascade the messages away).
        try database.saveConversations([Fixtures.conversation(1), Fixtures.conversation(2)], userID: Fixtures.user, at: Fixtures.base)
        #expect(try database.counts().messages == 15)
        #expect(try database.deleteConversation(id: Fixtures.conversationID(1), at: Date()))
        #expect(try database.counts() == (1, 5, 0))
        #expect(try database.messages(conversationID: Fixtures.conversationID(1)).messages.isEmpty)
        #expect(try database.messages(conversationID: Fixtures.conversationID(1)).syncedAt == nil)
        #expect(try !database.deleteConversation(id: Fixtures.conversationID(1), at: Date()))
    }

    @Test("a full list from the server removes conversations (and messages) it no longer has")
    func serverIsAuthoritative() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        try database.saveMessages(Fixtures.messages(1, count: 4), of: Fixtures.conversation(1), at: Fixtures.base)
        try database.saveMessages(Fixtures.messages(2, count: 4), of: Fixtures.conversation(2), at: Fixtures.base)
        try database.saveConversations([Fixtures.conversation(2)], userID: Fixtures.user, at: Fixtures.base)
        #expect(try database.counts() == (1, 4, 0))
        try database.saveMessages(Array(Fixtures.messages(2, count: 4).prefix(2)), of: Fixtures.conversation(2), at: Fixtures.base)
        #expect(try database.counts().messages == 2)
    }

    @Test("clear-all empties every table")
    func clearAll() throws {
        let dir = TemporaryDirectory()
        let database = try Fixtures.database(dir)
        try database.saveMessages(Fixtures.messages(1, count: 4), of: Fixtures.conversation(1), at: Fixtures.base)
        try database.saveContextProfile(Fixtures.profile, at: Fixtures.base)
        try database.removeAll()
        #expect(try database.counts() == (0, 0, 0))
        #expect(try database.conversations(userID: Fixtures.user).syncedAt == nil)
    }

    @Test("a damaged database file is moved aside and a new one started")
    func corruptFile() throws {
        let dir = TemporaryDirectory()
        let url = dir.url.appendingPathComponent("coach/coach.sqlite")
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        try Data(repeating: 0x42, count: 8192).write(to: url)
        let database = try CoachCache(url: url)
        #expect(try database.counts() == (0, 0, 0))
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + ".corrupt")) == Data(repeating: 0x42, count: 8192))
    }
}
