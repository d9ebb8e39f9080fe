@testable import BradOSServer
import Foundation
import GRDB
import Testing

/// What the reference server logs for Realtime and tells Plex listeners, without a socket.
@Suite("Reference server: the change log and notifications")
struct LiveFeedTests {
    @Test("every committed change of a published table is logged, whoever writes it; a paused writer logs nothing; an edit sets updated_at")
    func changeLog() throws {
        let database = try ServerDatabase(directory: nil)
        try DemoSeed.seed(database, seed: 0, coachMessages: 10, coachConversations: 2)
        let conversation = try database.writer.read { try String.fetchOne($0, sql: "SELECT id FROM conversations LIMIT 1") }
        let id = try #require(conversation)
        let before = try database.writer.read { try RealtimeChanges.last($0) }
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
                SELECT 'log-1', id, user_id, 'user', 'hello', 1800000000.5 FROM conversations WHERE id = ?
                """, arguments: [id])
            try db.execute(sql: "UPDATE messages SET content = 'edited' WHERE id = 'log-1'")
            try db.execute(sql: "DELETE FROM messages WHERE id = 'log-1'")
        }
        let changes = try database.writer.read { try RealtimeChanges.after(before, $0) }.filter { $0.table == "messages" }
        // One edit, one UPDATE: the new text with its edit time, the old row whole.
        try #require(changes.map(\.type) == ["INSERT", "UPDATE", "DELETE"])
        let inserted = try #require(RealtimeChanges.record(changes[0].record, of: CoachRoutes.messages))
        #expect(inserted["content"] as? String == "hello" && (inserted["created_at"] as? String)?.hasSuffix("+00:00") == true)
        let edit = try #require(RealtimeChanges.record(changes[1].record, of: CoachRoutes.messages))
        #expect(edit["content"] as? String == "edited" && edit["updated_at"] is String, "the new text with its edit time")
        #expect(RealtimeChanges.record(changes[1].oldRecord, of: CoachRoutes.messages)?["content"] as? String == "hello")
        #expect(RealtimeChanges.record(changes[2].oldRecord, of: CoachRoutes.messages)?["content"] as? String == "edited", "the old row whole")
        #expect(changes.allSatisfy { $0.userID != nil })
        let chosen = try database.writer.read { try RealtimeChanges.last($0) }
        try database.writer.write { db in  // a writer that sets the edit time itself: logged once too
            try db.execute(sql: "UPDATE messages SET content = 'own time', updated_at = 1800000001 WHERE conversation_id = ? AND rowid = (SELECT min(rowid) FROM messages WHERE conversation_id = ?)", arguments: [id, id])
        }
        #expect(try database.writer.read { try RealtimeChanges.after(chosen, $0) }.map(\.type) == ["UPDATE"])

        let paused = try database.writer.read { try RealtimeChanges.last($0) }
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO realtime_pause VALUES ('test')")
            try db.execute(sql: "UPDATE conversations SET title = 'quiet' WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM realtime_pause")
        }
        #expect(try database.writer.read { try RealtimeChanges.after(paused, $0) }.isEmpty)
    }

    @Test("a text with a NUL is kept whole: stored as its bytes, read back as the String, logged with \\u0000")
    func nulKept() throws {
        let database = try ServerDatabase(directory: nil)
        try DemoSeed.seed(database, seed: 0, coachMessages: 4, coachConversations: 1)
        let id = try #require(try database.writer.read { try String.fetchOne($0, sql: "SELECT id FROM conversations LIMIT 1") })
        let before = try database.writer.read { try RealtimeChanges.last($0) }
        let text = "a\u{0}b"
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
                SELECT 'nul-1', id, user_id, 'user', ?, 1800000000.5 FROM conversations WHERE id = ?
                """, arguments: [StoredText.value(text), id])
            try db.execute(sql: "UPDATE conversations SET title = ? WHERE id = ?", arguments: [StoredText.value("t\u{0}"), id])
        }
        let row = try #require(try database.writer.read { try Row.fetchOne($0, sql: "SELECT content FROM messages WHERE id = 'nul-1'") })
        #expect(String.fromDatabaseValue(row[0] as DatabaseValue) == text)
        let changes = try database.writer.read { try RealtimeChanges.after(before, $0) }
        #expect(changes.map(\.table) == ["messages", "conversations"])
        #expect(changes[0].record?.contains(#"\u0000"#) == true, "\(changes[0].record ?? "")")
        #expect(RealtimeChanges.record(changes[0].record, of: CoachRoutes.messages)?["content"] as? String == text)
        #expect(RealtimeChanges.record(changes[1].record, of: CoachRoutes.conversations)?["title"] as? String == "t\u{0}")
        #expect(StoredText.value("plain") as? String == "plain", "a text without a NUL stays TEXT")
    }

    @Test("filters: eq, neq, in, and order on numbers")
    func filters() throws {
        let record: [String: Any] = ["conversation_id": "c1", "n": 5]
        #expect(RealtimeFilter("conversation_id=eq.c1")?.holds(for: record) == true)
        #expect(RealtimeFilter("conversation_id=neq.c1")?.holds(for: record) == false)
        #expect(RealtimeFilter("conversation_id=in.(c2,c1)")?.holds(for: record) == true)
        #expect(RealtimeFilter("n=gt.4")?.holds(for: record) == true && RealtimeFilter("n=lt.4")?.holds(for: record) == false)
        #expect(RealtimeFilter("n=like.4") == nil && RealtimeFilter("nonsense") == nil)
    }

    @Test("timeline entries: an album added (created, then processed), retitled, deleted")
    func timeline() throws {
        let before = PlexCatalogue(seed: 1, size: 10, addedPerSecond: nil)
        var after = before
        let change = PlexCatalogue.Change(add: [.init(ratingKey: "990001", title: "New", artist: "A", year: 2026, addedAt: nil)],
                                          retitle: [before.albums[0].ratingKey: "Renamed"], delete: [before.albums[1].ratingKey], touch: nil, at: 1_800_000_000)
        after.apply(change)
        let entries = PlexTimelineEntry.entries(for: change, before: before, after: after)
        #expect(entries.map(\.state) == [0, 5, 5, 9])
        #expect(entries.map(\.itemID) == ["990001", "990001", before.albums[0].ratingKey, before.albums[1].ratingKey])
        #expect(entries.allSatisfy { $0.type == 9 && $0.sectionID == after.sectionKey && $0.updatedAt == 1_800_000_000 })
        let frame = try #require(try JSONSerialization.jsonObject(with: Data(PlexNotifier.frame(entries).utf8)) as? [String: Any])
        #expect(((frame["NotificationContainer"] as? [String: Any])?["TimelineEntry"] as? [Any])?.count == 4)
        #expect(PlexNotifier.events(Array(entries.prefix(1))).hasPrefix("event: timeline\ndata: {\"TimelineEntry\":"))
    }
}
