import BradOSCore
import BradOSNetworking
@testable import Coach
import Foundation
import Synchronization
import TestSupport
import Testing

/// Supabase Realtime in process: the channel protocol against a scripted connection, and the
/// rule that an event changes the copy only when the copy is not already as it says.
@Suite("Coach: Realtime")
struct RealtimeTests {
    let dir = TemporaryDirectory("coach-realtime")

    /// A connection that answers from a script and keeps what brados sent.
    final class ScriptedConnection: WebSocketConnection, @unchecked Sendable {
        let incoming: Mutex<[String]>
        let sent = Mutex<[String]>([])
        init(_ incoming: [String]) { self.incoming = Mutex(incoming) }
        func receive() async throws -> String? { incoming.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        func send(_ text: String) async throws { sent.withLock { $0.append(text) } }
        func ping(timeout: Duration) async throws {}
    }

    func record(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object) }

    @Test("the socket's address from the project's URL: ws, wss, and the embedded backend's Unix socket as it is")
    func addresses() throws {
        #expect(RealtimeChannel.url(base: URL(string: "http://127.0.0.1:8080")!, anonKey: "k")?.absoluteString
                == "ws://127.0.0.1:8080/realtime/v1/websocket?apikey=k&vsn=1.0.0")
        #expect(RealtimeChannel.url(base: URL(string: "https://abc.supabase.co/")!, anonKey: "k")?.absoluteString
                == "wss://abc.supabase.co/realtime/v1/websocket?apikey=k&vsn=1.0.0")
        #expect(RealtimeChannel.url(base: URL(string: "http+unix://%2Ftmp%2Fs.sock")!, anonKey: "k")?.absoluteString
                == "http+unix://%2Ftmp%2Fs.sock/realtime/v1/websocket?apikey=k&vsn=1.0.0")
    }

    @Test("a join sends phx_join with the bindings and the token; an error reply is a refusal with the server's reason")
    func join() async throws {
        let accepted = ScriptedConnection([#"{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":null}"#,
                                           #"{"topic":"realtime:c","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"1"}"#])
        try await RealtimeChannel(connection: accepted, name: "c").join([["event": "*", "schema": "public", "table": "messages"]], accessToken: "jwt")
        let join = try #require(accepted.sent.withLock { $0.first }.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(join["event"] as? String == "phx_join" && join["topic"] as? String == "realtime:c" && join["ref"] as? String == "1")
        let payload = try #require(join["payload"] as? [String: Any])
        #expect(payload["access_token"] as? String == "jwt")
        #expect(((payload["config"] as? [String: Any])?["postgres_changes"] as? [[String: String]])?.first?["table"] == "messages")

        let refused = ScriptedConnection([#"{"topic":"realtime:c","event":"phx_reply","payload":{"status":"error","response":{"reason":"no table"}},"ref":"1"}"#])
        do {
            try await RealtimeChannel(connection: refused, name: "c").join([], accessToken: "jwt")
            Issue.record("a refused join throws")
        } catch let CoachError.realtimeRefused(reason) {
            #expect(reason == "no table")
        }
        await #expect(throws: NetworkError.self) { try await RealtimeChannel(connection: ScriptedConnection([]), name: "c").join([], accessToken: "jwt") }
    }

    @Test("changes, closures and heartbeat replies as the server sends them; other topics and bad frames are passed over")
    func incoming() async throws {
        let connection = ScriptedConnection([
            #"{"topic":"realtime:c","event":"postgres_changes","ref":null,"payload":{"ids":[1],"data":{"schema":"public","table":"messages","type":"DELETE","old_record":{"id":"m1"},"columns":[],"errors":null,"commit_timestamp":"2026-11-27T00:00:00Z"}}}"#,
            #"{"topic":"realtime:other","event":"postgres_changes","ref":null,"payload":{}}"#,
            "not json",
            #"{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"7"}"#,
            #"{"topic":"realtime:c","event":"system","ref":null,"payload":{"status":"error","message":"Token has expired"}}"#,
        ])
        let channel = RealtimeChannel(connection: connection, name: "c")
        guard case let .change(change)? = try await channel.next() else { Issue.record("a change first"); return }
        #expect(change.kind == .delete && change.table == "messages" && CoachRepository.rowID(change.oldRecord) == "m1" && change.record == nil)
        guard case .other? = try await channel.next(), case .other? = try await channel.next() else { Issue.record("passed over"); return }
        guard case .heartbeatReply(7)? = try await channel.next() else { Issue.record("the heartbeat's reply"); return }
        guard case let .channelClosed(reason)? = try await channel.next() else { Issue.record("a closure"); return }
        #expect(reason == "Token has expired")
        #expect(try await channel.next() == nil)
    }

    @Test("an event changes the copy only when the copy is not already as it says: added once, changed once, deleted once")
    func eventsAreIdempotent() async throws {
        let database = try Fixtures.database(dir)
        let conversation = Fixtures.conversation(1, messages: 2)
        try database.saveMessages(Fixtures.messages(1, count: 2), of: conversation, at: Fixtures.base)
        let repository = CoachRepository(database: { database }, offline: false, now: { Fixtures.base }, userID: { Fixtures.user },
                                    api: { FakeCoachAPI() })
        let ledger = FollowLedger(conversationID: conversation.id, shown: Fixtures.messages(1, count: 2),
                                  held: try database.messages(conversationID: conversation.id).messages)
        let told = Mutex<[FollowEvent]>([])
        let emit: @Sendable (FollowEvent) throws -> Void = { event in told.withLock { $0.append(event) } }
        try ledger.reconcile(database, emit: emit)
        #expect(told.withLock { $0.isEmpty }, "the tail shown is printed already")
        let new: [String: Any] = ["id": "m-new", "conversation_id": conversation.id, "role": "user", "content": "hello",
                                  "created_at": "2027-01-15T08:00:00.000000+00:00"]
        var edited = new
        edited["content"] = "hello again"
        let insert = RowChange(table: "messages", kind: .insert, record: try record(new))
        for change in [insert, insert, RowChange(table: "messages", kind: .update, record: try record(edited)),
                       RowChange(table: "messages", kind: .update, record: try record(edited)),
                       RowChange(table: "messages", kind: .delete, oldRecord: try record(["id": "m-new"])),
                       RowChange(table: "messages", kind: .delete, oldRecord: try record(["id": "m-new"])),
                       // another conversation's message changes nothing here
                       RowChange(table: "messages", kind: .insert, record: try record(new.merging(["conversation_id": "other"]) { $1 }))] {
            _ = try repository.apply(change, to: conversation, ledger: ledger, emit: emit)
        }
        let events = told.withLock { $0 }
        #expect(events.count == 3, "\(events)")
        guard events.count == 3, case .added = events[0], case let .changed(message) = events[1], case .deleted("m-new") = events[2] else { return }
        #expect(message.content == "hello again")
        #expect(try database.message(id: "m-new") == nil)
        #expect(try database.messages(conversationID: conversation.id).messages.count == 2)
        // The conversation deleted: following ends, told once.
        #expect(try repository.apply(RowChange(table: "conversations", kind: .delete, oldRecord: try record(["id": conversation.id])),
                                     to: conversation, ledger: ledger, emit: emit) == nil)
        try ledger.end(emit: emit)
        #expect(told.withLock { $0.filter { if case .conversationDeleted = $0 { true } else { false } }.count } == 1)
        #expect(try database.conversation(id: conversation.id) == nil)
    }

    @Test("a message another process stored first (sync --watch beside the follower) is printed once, when its event comes or when the store moves")
    func storedElsewhereFirst() async throws {
        let database = try Fixtures.database(dir)
        let conversation = Fixtures.conversation(1, messages: 3)
        let messages = Fixtures.messages(1, count: 3)
        try database.saveMessages(messages, of: conversation, at: Fixtures.base)
        let repository = CoachRepository(database: { database }, offline: false, now: { Fixtures.base }, userID: { Fixtures.user },
                                         api: { FakeCoachAPI() })
        // The tail shown was the last two: the first is older, known, never printed.
        let ledger = FollowLedger(conversationID: conversation.id, shown: Array(messages.suffix(2)),
                                  held: try database.messages(conversationID: conversation.id).messages)
        let told = Mutex<[FollowEvent]>([])
        let emit: @Sendable (FollowEvent) throws -> Void = { event in told.withLock { $0.append(event) } }
        try ledger.reconcile(database, emit: emit)
        #expect(told.withLock { $0.isEmpty })

        func message(_ id: String, _ minutes: Double) -> Message {
            Message(id: id, conversationId: conversation.id, role: .assistant, content: "reply \(id)",
                    createdAt: Fixtures.base.addingTimeInterval(86_400 + minutes * 60))
        }
        // The watch stores w-1 before the follower's own event for it arrives.
        try database.upsertMessages([message("w-1", 1)], at: Fixtures.base)
        let row: [String: Any] = ["id": "w-1", "conversation_id": conversation.id, "role": "assistant", "content": "reply w-1",
                                  "created_at": "2027-01-16T08:01:00.000000+00:00"]
        _ = try repository.apply(RowChange(table: "messages", kind: .insert, record: try record(row)), to: conversation, ledger: ledger, emit: emit)
        // Two more stored elsewhere, with no event at all: the store moved.
        try database.upsertMessages([message("w-3", 3), message("w-2", 2)], at: Fixtures.base)
        #expect(try ledger.moved(database))
        try ledger.reconcile(database, emit: emit)
        #expect(try !ledger.moved(database))
        try ledger.reconcile(database, emit: emit)
        let added = told.withLock { $0 }.compactMap { event -> String? in if case let .added(message) = event { message.id } else { nil } }
        #expect(added == ["w-1", "w-2", "w-3"], "each once, in order of creation: \(told.withLock { $0 })")
        #expect(told.withLock { $0.count } == 3)
    }
}
