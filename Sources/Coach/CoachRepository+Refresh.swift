import BradOSCore
import Foundation

/// How the coach's copy is brought up to date: by what changed, not by downloading everything.
///
/// **The rule.** PostgREST has no tombstones and no change feed, so a refresh combines what it
/// does offer:
/// 1. *Newer rows:* everything at or after the cursor, the newest `updated_at` (conversations)
///    or `created_at` (messages) held (`gte`, so rows that share the cursor's time are read
///    again, never skipped).
/// 2. *The count:* the server's number of rows (`Prefer: count=exact`; for messages, the
///    conversation's `messages(count)`, in the same request as the conversation) against the
///    local number after step 1.
/// 3. *The sweep,* only when the counts differ: an id-only listing; local rows the server does
///    not list are deleted, ids it lists that are not held are fetched by id. A conversation
///    of more than ``SweepLimits/wholeSweep`` messages is not listed whole: halves of it
///    are counted until the few ranges that differ are small enough to list
///    (``CoachRepository/differences(_:id:database:in:serverCount:)``).
///
/// **Why a delete cannot be missed.** A delete lowers the server's count; step 1 cannot raise
/// the local count for a deleted row, so after it the local count is higher than the server's
/// unless rows were also *added* that step 1 did not see. Step 1 sees every row at or after the
/// cursor, so such a row must be one created with an older time than the cursor (another
/// device's clock, a late write). A late arrival on its own raises the server's count and is
/// found by the sweep the same way.
///
/// **The bound.** Only a late arrival and a delete in the same interval cancel out in the count
/// (and, for conversations, an update stamped with an older `updated_at`). Every refresh
/// therefore checks the copy whole once it is ``CoachRepository/fullCheckInterval`` (24 hours) old:
/// the conversation list is downloaded whole, a conversation's messages are swept by id. No
/// such case stays wrong for longer than that after the next refresh. A cursor is dropped by
/// `cache import` (the rebuilt database forgets it), `cache clear` and `auth logout`, and
/// `--full` downloads everything at once.
extension CoachRepository {
    /// How old the last whole check of a copy may be before a refresh checks it whole again.
    public static let fullCheckInterval: TimeInterval = 24 * 3600

    /// Brings the user's conversation list up to date and returns it from the store.
    /// - Parameter full: download the whole list (`--full`), as when there is no copy.
    /// - Throws: ``NetworkError``, ``AuthError``, ``StorageError``.
    func refreshConversations(_ api: any CoachAPI, userID: String, full: Bool) async throws -> [Conversation] {
        let database = try self.database()
        let state = full ? nil : try database.conversationsState(userID: userID)
        guard let state, now().timeIntervalSince(state.checkedAt) < Self.fullCheckInterval else {
            let all = try await api.conversations(userID: userID, updatedSince: nil)
            try database.apply(.init(upserted: all, serverIDs: Set(all.map(\.id)), checkedWhole: true), userID: userID, at: now())
            return try database.conversations(userID: userID).conversations
        }
        let changed = try await api.conversations(userID: userID, updatedSince: state.cursor)
        let serverCount = try await api.conversationCount(userID: userID)
        var changes = CoachCache.Changes(upserted: changed, serverIDs: nil)
        if try database.conversationCount(userID: userID, adding: changed) != serverCount {
            let ids = try await api.conversationIDs(userID: userID)
            let held = try database.conversationIDs(userID: userID).union(changed.map(\.id))
            changes.upserted += try await api.conversations(ids: ids.subtracting(held).sorted())
            changes.serverIDs = ids
        }
        try database.apply(changes, userID: userID, at: now())
        return try database.conversations(userID: userID).conversations
    }

    /// Brings one conversation and its messages up to date.
    /// - Parameters:
    ///   - full: download every message (`--full`), as when there is no copy.
    ///   - sweepAnyway: list a conversation of at most ``SweepLimits/wholeSweep`` messages by id even
    ///     when the counts agree (a live catch-up: a lost insert and a missed delete in the
    ///     same gap cancel out in the count).
    /// - Returns: the conversation, or `nil` when the server no longer has it (the cached copy is then removed).
    /// - Throws: ``NetworkError``, ``AuthError``, ``StorageError``.
    func refreshThread(_ api: any CoachAPI, id: String, full: Bool, sweepAnyway: Bool = false) async throws -> Conversation? {
        guard let remote = try await api.conversation(id: id) else {
            cacheWrite("deletion") { try self.database().deleteConversation(id: id, at: self.now()) }
            return nil
        }
        return try await refreshMessages(api, of: remote, full: full, sweepAnyway: sweepAnyway)
    }

    /// ``refreshThread(_:id:full:sweepAnyway:)`` for a conversation whose row and count are
    /// known already (the list `sync` fetched just before): its messages only.
    func refreshMessages(_ api: any CoachAPI, of remote: RemoteConversation, full: Bool, sweepAnyway: Bool = false) async throws -> Conversation {
        let id = remote.conversation.id
        let database = try self.database()
        let changes: CoachCache.Changes<Message>
        if let state = full ? nil : try database.messagesState(conversationID: id) {
            let changed = try await api.messages(conversationID: id, createdSince: state.cursor)
            let held = try database.messageCount(conversationID: id, adding: changed)
            if now().timeIntervalSince(state.checkedAt) >= Self.fullCheckInterval || ((sweepAnyway || held != remote.messageCount) && held <= sweepLimits.wholeSweep) {
                changes = try await sweep(api, id: id, database: database, changed: changed)
            } else if held != remote.messageCount {
                // Write what came first, so the counts by range below compare like with like.
                try database.apply(.init(upserted: changed, serverIDs: nil), of: remote.conversation, at: now())
                let found = try await differences(api, id: id, database: database, in: .all, serverCount: remote.messageCount)
                // An id in both (its time differs here and there) is refreshed, not deleted.
                changes = .init(upserted: try await api.messages(ids: found.missing.sorted()), deleted: found.extra.subtracting(found.missing), serverIDs: nil)
            } else {
                changes = .init(upserted: changed, serverIDs: nil)
            }
        } else {
            let all = try await api.messages(conversationID: id, createdSince: nil)
            changes = .init(upserted: all, serverIDs: Set(all.map(\.id)), checkedWhole: true)
        }
        try database.apply(changes, of: remote.conversation, at: now())
        return remote.conversation
    }


    /// The id-only sweep of a conversation's messages: what the server lists and the local
    /// copy lacks is fetched by id; what the copy holds and the server does not list goes.
    func sweep(_ api: any CoachAPI, id: String, database: CoachCache, changed: [Message]) async throws -> CoachCache.Changes<Message> {
        let ids = try await api.messageIDs(conversationID: id, in: .all)
        let held = try database.messageIDs(conversationID: id).union(changed.map(\.id))
        let missing = try await api.messages(ids: ids.subtracting(held).sorted())
        return CoachCache.Changes(upserted: changed + missing, serverIDs: ids, checkedWhole: true)
    }

    /// Where a large copy and the server differ, found by counting halves of the
    /// conversation by creation time (``CountBisection``; a delete and a late arrival in the
    /// same half wait for the daily whole check, as in the count rule itself).
    /// - Returns: ids the server has and the copy lacks, and ids the copy has and the server lacks.
    func differences(_ api: any CoachAPI, id: String, database: CoachCache, in range: TimeRange,
                     serverCount: Int) async throws -> (missing: Set<String>, extra: Set<String>) {
        let bisection = CountBisection<Date>(
            listLimit: sweepLimits.rangeList,
            localCount: { try database.messageCount(conversationID: id, in: $0) },
            middle: { try database.middleTime(conversationID: id, in: $0) },
            localIDs: { try database.messageIDs(conversationID: id, in: $0) },
            serverCount: { try await api.messageCount(conversationID: id, in: $0) },
            serverIDs: { try await api.messageIDs(conversationID: id, in: $0) })
        return try await bisection.differences(in: range, serverCount: serverCount)
    }
}

/// When a count that differs is settled by listing ids, and when by counting halves.
public struct SweepLimits: Sendable {
    /// Up to this many messages, one id-only sweep of the whole conversation (two pages);
    /// above it, ``CoachRepository/differences(_:id:database:in:serverCount:)``.
    public var wholeSweep = 1000
    /// A range whose server count is at most this is listed by id (one page).
    public var rangeList = 500

    public init(wholeSweep: Int = 1000, rangeList: Int = 500) {
        self.wholeSweep = wholeSweep
        self.rangeList = rangeList
    }
}
