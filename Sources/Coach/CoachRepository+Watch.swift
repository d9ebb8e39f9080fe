import BradOSCore
import BradOSNetworking
import Foundation

/// `brados sync --watch` for the coach: every conversation of the user, and the messages of
/// the conversations the copy holds, followed live by one Realtime channel, with the same
/// rule as `coach show --follow` (join, catch up with the delta refresh, then events).
extension CoachRepository {
    /// Keeps the coach's copy following the server until the task is cancelled.
    /// - Throws: `CancellationError`; ``CoachError``; ``AuthError``; ``StorageError``.
    public func watch(access: RealtimeAccess, tell: @escaping @Sendable (WatchEvent) -> Void) async throws {
        let user = try requireUserID()
        try await keep(RealtimeSubscription(
            name: "coach:user:\(user)",
            bindings: [["event": "*", "schema": "public", "table": "conversations", "filter": "user_id=eq.\(user)"],
                       ["event": "*", "schema": "public", "table": "messages", "filter": "user_id=eq.\(user)"]],
            catchUp: {
                let api = try await self.api()
                let conversations = try await self.refreshConversations(api, userID: user, full: false)
                let database = try self.database()
                var threads = 0
                for conversation in conversations where try database.messagesState(conversationID: conversation.id) != nil {
                    _ = try await self.refreshThread(api, id: conversation.id, full: false, sweepAnyway: true)
                    _ = try await self.catchUpEdits(of: conversation.id)
                    threads += 1
                }
                tell(.changed("caught up (\(conversations.count) conversations, \(threads) with their messages)"))
                return true
            },
            apply: { change in
                try self.applyWatched(change, tell: tell)
                return true
            }),
            access: access, reconnecting: { gap, after in tell(.paused(reason: gap.reason, after: after, unreachable: gap.unreachable)) })
    }

    /// One event to the copy: a message of a conversation whose messages it holds, a
    /// conversation of the list.
    func applyWatched(_ change: RowChange, tell: @Sendable (WatchEvent) -> Void) throws {
        let database = try self.database()
        switch (change.table, change.kind) {
        case ("messages", .insert), ("messages", .update):
            guard let message = change.row(Message.self), let conversation = try database.conversation(id: message.conversationId),
                  try database.messagesState(conversationID: conversation.id) != nil,
                  try saveEvent(message, of: conversation) != nil else { return }
            tell(.changed("message \(message.id.prefix(8)) of \(conversation.id.prefix(8)) \(change.kind == .insert ? "added" : "changed")"))
        case ("messages", .delete):
            guard let id = Self.rowID(change.oldRecord), let held = try database.message(id: id),
                  let conversation = try database.conversation(id: held.conversationId),
                  try deleteEvent(message: id, of: conversation) else { return }
            tell(.changed("message \(id.prefix(8)) of \(conversation.id.prefix(8)) deleted"))
        case ("conversations", .delete):
            guard let id = Self.rowID(change.oldRecord), try database.deleteConversation(id: id, at: now()) else { return }
            tell(.changed("conversation \(id.prefix(8)) deleted"))
        case ("conversations", _):
            guard let conversation = change.row(Conversation.self), try database.conversation(id: conversation.id) != conversation else { return }
            try database.upsertConversations([conversation], at: now())
            tell(.changed("conversation \(conversation.id.prefix(8)) \(change.kind == .insert ? "added" : "changed")"))
        default:
            break
        }
    }
}
