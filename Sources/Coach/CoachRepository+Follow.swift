import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Synchronization

/// What `coach show --follow` prints, in order.
public enum FollowEvent: Sendable, Equatable {
    /// A message that was not in the copy (new on the server, or found by a catch-up).
    case added(Message)
    /// A message whose text (or role, or time) changed.
    case changed(Message)
    /// A message the server no longer has.
    case deleted(id: String)
    /// The conversation's title or domain changed.
    case conversationChanged(Conversation)
    /// The conversation was deleted: following ends.
    case conversationDeleted(id: String)
    /// The connection ended (`reason`); the next one is tried after `after`, then what was
    /// missed is caught up before any event is applied.
    case reconnecting(reason: String, after: Duration)
}

/// How `--follow` reaches Supabase Realtime: the socket's address, the session's token (and
/// its renewal), the connector, and how often a heartbeat checks that the connection lives.
public struct RealtimeAccess: Sendable {
    public var url: URL
    public var token: @Sendable () async throws -> String
    public var renew: @Sendable (_ rejected: String) async throws -> String
    public var connector: any WebSocketConnecting
    /// A heartbeat every `heartbeat` (30 s, as Phoenix's own clients); no reply within
    /// min(10 s, heartbeat) ends the connection (a dead one is noticed within 40 s).
    public var heartbeat: Duration
    /// Waits between attempts to connect (exponential, jittered, capped).
    public var backoff: RetryPolicy
    /// How often `--follow` looks whether another process stored something (one row's read:
    /// the store's revision): 250 ms.
    public var storeCheck: Duration

    public init(url: URL, token: @escaping @Sendable () async throws -> String, renew: @escaping @Sendable (String) async throws -> String,
                connector: any WebSocketConnecting, heartbeat: Duration = .seconds(30),
                backoff: RetryPolicy = LiveConnection.backoff, storeCheck: Duration = .milliseconds(250)) {
        self.storeCheck = storeCheck
        self.url = url
        self.token = token
        self.renew = renew
        self.connector = connector
        self.heartbeat = heartbeat
        self.backoff = backoff
    }
}

/// Following a conversation: **the rule.** Every connection first joins the conversation's
/// channel (its messages, and its own row), then catches up over REST with the delta refresh
/// (``refreshThread(_:id:full:)``), and only then applies the events that arrived meanwhile
/// and after, in the order the server committed them. An event whose row is already as it
/// says (an insert of a message held, a delete of one not held) changes nothing in the store.
/// So a lost event, a dropped connection or a gap of any length is repaired by the next
/// connection's catch-up, and replaying events the catch-up already saw converges to the
/// server's rows (each row's last event is the latest state).
///
/// **What is printed** is not what this process wrote but what the store holds that differs
/// from what was printed (``FollowLedger``): after each catch-up and event, and whenever the
/// store's revision moves (another brados, such as `sync --watch`, stored a row first). So
/// every message newer than the tail shown is printed once, in order, whoever stored it.
extension CoachRepository {
    /// Follows a conversation until the task is cancelled (Ctrl-C) or the conversation is
    /// deleted, telling `emit` each change the store takes.
    /// - Parameters:
    ///   - id: the conversation's full id.
    ///   - shown: the messages already printed (the tail `--follow` shows first): every
    ///     message after the last of them is printed as it reaches the store.
    /// - Throws: `CancellationError`; ``CoachError/realtimeRefused(_:)`` when the first join is
    ///   refused; ``AuthError`` when the session cannot be renewed; ``StorageError``.
    public func follow(_ id: String, shown: [Message], access: RealtimeAccess, emit: @escaping @Sendable (FollowEvent) throws -> Void) async throws {
        let database = try self.database()
        let ledger = FollowLedger(conversationID: id, shown: shown, held: try database.messages(conversationID: id).messages)
        try ledger.reconcile(database, emit: emit)
        let box = ConversationBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await self.keep(RealtimeSubscription(
                    name: "coach:\(id)",
                    bindings: [["event": "*", "schema": "public", "table": "messages", "filter": "conversation_id=eq.\(id)"],
                               ["event": "*", "schema": "public", "table": "conversations", "filter": "id=eq.\(id)"]],
                    catchUp: {
                        let conversation = try await self.catchUp(id, ledger: ledger, emit: emit)
                        box.set(conversation)
                        return conversation != nil
                    },
                    apply: { change in
                        guard let conversation = box.get() else { return false }
                        let next = try self.apply(change, to: conversation, ledger: ledger, emit: emit)
                        box.set(next)
                        return next != nil
                    }), access: access, reconnecting: { try ledger.tell(.reconnecting(reason: $0.reason, after: $1), emit: emit) })
            }
            // What another process stores (the watch's copy of the same event, a refresh
            // elsewhere) is printed as soon as the store's revision moves.
            group.addTask {
                while true {
                    try await Task.sleep(for: access.storeCheck)
                    if try ledger.moved(database) { try ledger.reconcile(database, emit: emit) }
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The conversation a follow keeps, between its catch-ups and its events.
    final class ConversationBox: Sendable {
        let value = Mutex<Conversation?>(nil)
        func get() -> Conversation? { value.withLock { $0 } }
        func set(_ conversation: Conversation?) { value.withLock { $0 = conversation } }
    }

    /// What one Realtime channel follows, and how: its bindings, the catch-up that makes any
    /// gap harmless, and what each event does (`false` from either: nothing more to follow).
    struct RealtimeSubscription: Sendable {
        var name: String
        var bindings: [[String: String]]
        var catchUp: @Sendable () async throws -> Bool
        var apply: @Sendable (RowChange) async throws -> Bool
    }

    /// Keeps a subscription until it says it is done or the task is cancelled: join, catch
    /// up, apply events; after any gap, wait (``LiveConnection``) and do it all again.
    /// - Throws: `CancellationError`; ``CoachError/realtimeRefused(_:)`` when the first join is
    ///   refused; ``AuthError``; ``StorageError``.
    func keep(_ subscription: RealtimeSubscription, access: RealtimeAccess,
              reconnecting: @escaping @Sendable (LiveConnection.Gap, Duration) async throws -> Void) async throws {
        try await LiveConnection.keep(backoff: access.backoff, gap: { error, joined in
            switch error {
            case let error as AuthError: throw error
            case let CoachError.realtimeRefused(message) where !message.lowercased().contains("expired") && !joined:
                throw CoachError.realtimeRefused(message)
            case let gap as Gap: return .init(reason: gap.reason, retryAtOnce: gap.tokenExpired)
            case let error as CoachError: return .init(reason: error.summary, retryAtOnce: "\(error)".lowercased().contains("expired"))
            default: return .init(error)
            }
        }, reconnecting: reconnecting) { previous, joined in
            try await self.connectOnce(subscription, access: access, renewFirst: previous?.retryAtOnce ?? false, joined: joined) == .done
        }
    }

    /// Why one connection ended.
    struct Gap: Error {
        var reason: String
        var tokenExpired = false
    }

    enum Outcome { case closed, done }

    /// The last heartbeat the server answered.
    final class HeartbeatMark: Sendable { let value = Mutex(0) }

    /// One connection: join, catch up, apply events until it ends.
    private func connectOnce(_ subscription: RealtimeSubscription, access: RealtimeAccess, renewFirst: Bool,
                             joined: @escaping @Sendable () -> Void) async throws -> Outcome {
        var token = try await access.token()
        if renewFirst || JWTExpiry.of(token).map({ $0.timeIntervalSince(now()) < 60 }) == true { token = try await access.renew(token) }
        let opening = token
        let outcome = try await access.connector.withConnection(to: access.url, headers: []) { connection in
            let channel = RealtimeChannel(connection: connection, name: subscription.name)
            try await channel.join(subscription.bindings, accessToken: opening)
            joined()
            return try await self.live(channel, subscription: subscription, access: access, token: opening)
        }
        return outcome
    }

    /// A joined channel: the reader, the heartbeat (and token renewal), and the catch-up then
    /// the events, until one of them ends the connection.
    private func live(_ channel: RealtimeChannel, subscription: RealtimeSubscription, access: RealtimeAccess, token: String) async throws -> Outcome {
        let (inbox, delivery) = AsyncStream<RealtimeIncoming>.makeStream()
        let lastReply = HeartbeatMark()
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                defer { delivery.finish() }
                while let incoming = try await channel.next() {
                    if case let .heartbeatReply(ref) = incoming { lastReply.value.withLock { $0 = max($0, ref) } } else { delivery.yield(incoming) }
                }
                return .closed
            }
            group.addTask {
                var token = token
                while true {
                    try await Task.sleep(for: access.heartbeat)
                    let ref = try await channel.heartbeat()
                    try await Task.sleep(for: min(access.heartbeat, .seconds(10)))
                    if lastReply.value.withLock({ $0 }) < ref {
                        throw Gap(reason: "no heartbeat reply within \(min(access.heartbeat, .seconds(10)))")
                    }
                    if let expiry = JWTExpiry.of(token), expiry.timeIntervalSince(self.now()) < 60 + access.heartbeat.seconds {
                        token = try await access.renew(token)
                        try await channel.renew(token)
                    }
                }
            }
            group.addTask {
                guard try await subscription.catchUp() else { return .done }
                for await incoming in inbox {
                    switch incoming {
                    case let .change(change):
                        guard try await subscription.apply(change) else { return .done }
                    case let .channelClosed(reason):
                        throw Gap(reason: reason, tokenExpired: reason.lowercased().contains("expired"))
                    case .heartbeatReply, .other:
                        continue
                    }
                }
                return .closed
            }
            let first = try await group.next() ?? .closed
            group.cancelAll()
            return first
        }
    }

    /// The delta refresh, then what the store holds that was not printed, told as events.
    /// - Returns: the conversation, or `nil` when the server no longer has it.
    func catchUp(_ id: String, ledger: FollowLedger, emit: @Sendable (FollowEvent) throws -> Void) async throws -> Conversation? {
        let database = try self.database()
        guard let conversation = try await refreshThread(try await api(), id: id, full: false, sweepAnyway: true) else {
            try ledger.end(emit: emit)
            return nil
        }
        _ = try await catchUpEdits(of: conversation.id)
        try ledger.reconcile(database, emit: emit)
        return conversation
    }

    /// The messages edited since the last catch-up looked (a change no count shows), saved.
    /// - Returns: those whose stored copy changed.
    func catchUpEdits(of conversationID: String) async throws -> [Message] {
        let database = try self.database()
        guard let edited = try await api().editedMessages(conversationID: conversationID, since: try database.editCursor(conversationID: conversationID))
        else { return [] }
        return try database.applyEdits(edited.messages, newest: edited.newest, at: now())
    }

    /// One event applied to the copy; then what the store holds that was not printed is told.
    /// - Returns: the conversation as it now is; `nil` when it was deleted.
    func apply(_ change: RowChange, to conversation: Conversation, ledger: FollowLedger,
               emit: @Sendable (FollowEvent) throws -> Void) throws -> Conversation? {
        let database = try self.database()
        switch (change.table, change.kind) {
        case ("messages", .insert), ("messages", .update):
            guard let message = change.row(Message.self), message.conversationId == conversation.id else { return conversation }
            _ = try saveEvent(message, of: conversation)
            try ledger.reconcile(database, emit: emit)
        case ("messages", .delete):
            guard let id = Self.rowID(change.oldRecord) else { return conversation }
            _ = try deleteEvent(message: id, of: conversation)
            try ledger.reconcile(database, emit: emit)
        case ("conversations", .delete):
            guard Self.rowID(change.oldRecord) == conversation.id else { return conversation }
            _ = try database.deleteConversation(id: conversation.id, at: now())
            try ledger.end(emit: emit)
            return nil
        case ("conversations", _):
            guard var updated = change.row(Conversation.self), updated.id == conversation.id else { return conversation }
            // The row's own count is not the messages held; the copy's stays.
            updated.messageCount = conversation.messageCount
            guard updated.title != conversation.title || updated.domain != conversation.domain else { return conversation }
            try database.upsertConversations([updated], at: now())
            try ledger.tell(.conversationChanged(updated), emit: emit)
            return updated
        default:
            break
        }
        return conversation
    }

    /// A message an event carries, saved when the copy is not already as the event says.
    /// - Returns: whether the copy held the message before; `nil` when nothing changed.
    func saveEvent(_ message: Message, of conversation: Conversation) throws -> Bool? {
        let database = try self.database()
        let held = try database.message(id: message.id)
        guard held != message else { return nil }
        try database.apply(.init(upserted: [message], serverIDs: nil), of: conversation, at: now())
        return held != nil
    }

    /// A message an event says is gone, removed when the copy holds it.
    /// - Returns: whether the copy held it.
    func deleteEvent(message id: String, of conversation: Conversation) throws -> Bool {
        let database = try self.database()
        guard try database.message(id: id) != nil else { return false }
        try database.apply(.init(upserted: [], deleted: [id], serverIDs: nil), of: conversation, at: now())
        return true
    }

    /// The `id` of a row's JSON.
    static func rowID(_ json: Data?) -> String? {
        json.flatMap { try? JSONCoding.decode(JSONValue.self, from: $0).objectValue?["id"]?.stringValue }
    }
}

extension RowChange {
    /// The row after the change as a coach type (`nil` for a delete, or a row that does not decode).
    func row<Row: Decodable>(_ type: Row.Type) -> Row? {
        record.flatMap { try? SupabaseJSON.decoder().decode(type, from: $0) }
    }
}
