import BradOSCore
import BradOSTerminal
import Foundation

extension CoachRepository {
    /// Which conversations' messages `brados sync` keeps for reading offline (`coach.sync-messages`).
    public enum SyncedMessages: String, Sendable, CaseIterable {
        /// Every conversation's, newest first, within `coach.sync-budget` (the default: a
        /// person who syncs before a flight reads everything on it).
        case all
        /// Only those of conversations opened before.
        case opened
    }

    /// What ``syncMessages(_:budget:)`` did.
    public struct MessagesSync: Sendable, Equatable {
        /// Conversations whose messages were brought up to date.
        public var refreshed = 0
        /// Conversations whose copy was current already (nothing asked).
        public var current = 0
        /// The oldest conversations left out: the messages held reached the budget.
        public var leftOut = 0
        /// The budget, in bytes of message text.
        public var budget = 0

        /// "messages of 40 conversations kept for offline reading; the 2 oldest left out (over the 100 MB coach.sync-budget)".
        public var summary: String {
            "messages of \(Format.count(refreshed + current, "conversation")) kept for offline reading"
                + (leftOut > 0 ? "; the \(leftOut) oldest left out (over the \(Format.bytes(Int64(budget))) coach.sync-budget)" : "")
        }
    }

    /// Brings the messages of `conversations` (the list just fetched, with the server's counts)
    /// up to date, the most recently active first, each by what changed; a conversation whose
    /// copy is as new as its row and holds as many messages is not asked about. Once the
    /// messages held reach `budget` bytes, the older conversations are left out (and counted).
    /// - Throws: ``NetworkError``, ``AuthError``, ``StorageError``.
    public func syncMessages(_ conversations: [Conversation], budget: Int) async throws -> MessagesSync {
        var report = MessagesSync(budget: budget)
        let newestFirst = conversations.sorted { ($0.lastMessageAt ?? $0.updatedAt, $0.id) > ($1.lastMessageAt ?? $1.updatedAt, $1.id) }
        let database = try database()
        var api: (any CoachAPI)?
        for (index, conversation) in newestFirst.enumerated() {
            let held = try database.messageCount(conversationID: conversation.id)
            if let syncedAt = held.syncedAt, held.total == conversation.messageCount,
               syncedAt >= max(conversation.updatedAt, conversation.lastMessageAt ?? conversation.updatedAt) {
                report.current += 1
                continue
            }
            if try database.messageBytes() >= budget {
                report.leftOut = newestFirst.count - index
                break
            }
            let client: any CoachAPI
            if let api { client = api } else { client = try await self.api(); api = client }
            _ = try await refreshMessages(client, of: RemoteConversation(conversation: conversation, messageCount: conversation.messageCount), full: false)
            report.refreshed += 1
        }
        return report
    }
}
