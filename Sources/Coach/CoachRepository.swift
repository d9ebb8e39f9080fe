import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// A conversation with the messages shown by `coach show`: all of them, or the last N.
public struct ConversationThread: Sendable, Equatable {
    public var conversation: Conversation
    /// The messages shown, in order of creation, when read as a whole (the last N, or a
    /// conversation fetched without the store); empty when ``stored`` reads them.
    public var messages: [Message]
    /// How many messages the conversation has (more than are shown with `--last`).
    public var total: Int
    /// Every message, read from the store a batch at a time when shown (`nil`: ``messages`` holds them).
    public var stored: StoredMessages?
    /// The message `coach show --message` opens the conversation at (shown marked), if any.
    public var marked: String?
    /// How many messages come before those shown, and after them.
    public var earlier: Int
    public var later: Int

    public init(conversation: Conversation, messages: [Message], total: Int, stored: StoredMessages? = nil,
                marked: String? = nil, earlier: Int? = nil, later: Int = 0) {
        self.conversation = conversation
        self.messages = messages
        self.total = total
        self.stored = stored
        self.marked = marked
        self.earlier = earlier ?? (stored == nil ? max(0, total - messages.count) : 0)
        self.later = later
    }

    /// The messages shown, a batch at a time: from the store as it is read, or ``messages`` in one batch.
    /// - Throws: ``StorageError``, or what `body` throws.
    public func forEachBatch(_ body: ([Message]) throws -> Void) throws {
        guard let stored else { return try body(messages) }
        try stored.database.forEachMessage(conversationID: stored.conversationID, body)
    }

    /// The messages shown, read whole.
    /// - Throws: ``StorageError``.
    public func allMessages() throws -> [Message] {
        var all: [Message] = []
        try forEachBatch { all += $0 }
        return all
    }
}

/// Where a conversation's messages are read from when shown: a long conversation is printed
/// as it is read, never decoded whole first.
public struct StoredMessages: Sendable, Equatable {
    let database: CoachCache
    let conversationID: String

    public static func == (lhs: StoredMessages, rhs: StoredMessages) -> Bool {
        lhs.database === rhs.database && lhs.conversationID == rhs.conversationID
    }
}

/// Coach logic: the stored copy first, refreshed behind (``CoachPlugin/cachePolicy``),
/// declared as ``CachedResource``s (``conversationList``, ``thread(_:)``,
/// ``context(refresh:)``) and carried out by the shared ``CacheReader``. A read with a copy
/// shows it at once and leaves the refresh to a detached `brados coach revalidate` (one per
/// resource: ``refreshStamps``); with none it asks the server. Every successful fetch updates
/// the local store; offline (`--offline`) the same model types come from the store, marked as
/// cached with their age. A store failure never fails a command: it is logged and the remote
/// data are shown.
public struct CoachRepository: Sendable {
    /// 1 hour (config key `coach.context-ttl`).
    public static let defaultContextTTL: Duration = .seconds(3600)

    let database: @Sendable () throws -> CoachCache
    let api: @Sendable () async throws -> any CoachAPI
    let userID: @Sendable () throws -> String?
    let offline: Bool
    public let contextTTL: Duration
    let profile: String
    let now: @Sendable () -> Date
    let logger: Logger
    /// One-line notices on stderr (a cached copy shown instead of the network).
    let notice: @Sendable (String) -> Void
    /// How a differing count is settled (tests make the halving run on small conversations).
    public var sweepLimits = SweepLimits()
    /// How `--follow` reaches Supabase Realtime (``follow(_:access:emit:)``); `nil` where it cannot.
    public var realtime: (@Sendable () async throws -> RealtimeAccess)?
    /// Where each resource's background refresh keeps its stamp, lock and last failure
    /// (`nil`: resources have no background refresh: every refresh runs in the foreground).
    public var refreshStamps: (@Sendable (_ resource: String) -> RefreshStamp)?

    public init(database: @escaping @Sendable () throws -> CoachCache, offline: Bool, contextTTL: Duration = defaultContextTTL,
                profile: String = "default", now: @escaping @Sendable () -> Date, logger: Logger = Logger(label: "brados.coach"),
                notice: @escaping @Sendable (String) -> Void = { _ in },
                userID: @escaping @Sendable () throws -> String?, api: @escaping @Sendable () async throws -> any CoachAPI) {
        self.notice = notice
        self.database = database
        self.offline = offline
        self.contextTTL = contextTTL
        self.profile = profile
        self.now = now
        self.logger = logger
        self.userID = userID
        self.api = api
    }

    /// The reader of this store's answers (one value, no early presentation).
    private var reader: CacheReader { CacheReader(mode: .script, offline: offline, now: now, notice: notice) }

    /// The user's conversations, most recently updated first.
    /// - Throws: ``CoachError/notCached(what:reason:)`` when neither the server nor the store has them.
    public func conversations() async throws -> (conversations: [Conversation], source: DataSource) {
        let shown = try await reader.answer(conversationList)
        return (shown.value, shown.source)
    }

    /// Brings the conversation list up to date by what changed (``refreshConversations(_:userID:full:)``)
    /// and returns it, with no cached fallback (`brados sync`). A store that cannot be read
    /// or written never fails it: the whole list is then fetched and returned.
    /// - Parameter full: download the whole list (`--full`).
    /// - Throws: ``NetworkError``, ``AuthError``, ``CoachError``.
    public func fetchConversations(full: Bool = false) async throws -> [Conversation] {
        let api = try await api() // signs in to the demo backend first when that is the server
        let user = try requireUserID()
        do {
            return try await refreshConversations(api, userID: user, full: full)
        } catch let error as StorageError {
            logger.warning("could not update the coach cache (conversations): \(error.logText)")
            return try await api.conversations(userID: user, updatedSince: nil).sorted { ($0.updatedAt, $1.id) > ($1.updatedAt, $0.id) }
        }
    }

    /// A conversation and all its messages, in order of creation (ties by id).
    /// - Parameter id: a full id, or a prefix of a cached one.
    /// - Throws: ``CoachError/conversationNotFound(id:)`` (a cached copy of a conversation the
    ///   server no longer has is removed then), ``CoachError/ambiguousID(prefix:matches:)``,
    ///   ``CoachError/notCached(what:reason:)``.
    public func conversation(_ id: String) async throws -> (conversation: Conversation, messages: [Message], source: DataSource) {
        let (thread, source) = try await reader.answer(try await self.thread(id))
        return (thread.conversation, try thread.allMessages(), source)
    }

    /// Deletes a conversation on the server; only after the server confirmed, the cached
    /// conversation and its messages are removed (by the cascade). A failed delete leaves the
    /// cache untouched.
    ///
    /// A conversation the server no longer has but the cache does counts as deleted (it may
    /// have gone in an earlier attempt whose answer was lost); the cached copy is removed.
    /// - Throws: ``CoachError/conversationNotFound(id:)`` when neither has it, ``NetworkError``, ``AuthError``.
    @discardableResult
    public func delete(_ id: String) async throws -> Conversation? {
        try await OperationLog.run("coach.delete", logger: logger) { try await deleteNow(id) }
    }

    private func deleteNow(_ id: String) async throws -> Conversation? {
        let resolved = try await resolve(id)
        let cached = try? database().conversation(id: resolved)
        let deleted = try await api().deleteConversation(id: resolved)
        // The server is authoritative: a conversation it does not have leaves the cache too.
        cacheWrite("deletion") { try database().deleteConversation(id: resolved, at: now()) }
        guard deleted || cached != nil else { throw CoachError.conversationNotFound(id: resolved) }
        if !deleted { logger.info("conversation \(resolved) was already gone on the server; removed the cached copy") }
        return cached
    }

    /// The context profile, by ``CoachPlugin/contextPolicy(ttl:)``: from the store while younger
    /// than the TTL (no request), else fetched, with the stored copy as the answer to a failure.
    /// - Parameter refresh: ask the server even within the TTL.
    public func contextProfile(refresh: Bool = false) async throws -> (profile: ContextProfile?, source: DataSource) {
        let shown = try await reader.answer(context(refresh: refresh))
        return (shown.value, shown.source)
    }

    /// The cached copy of a conversation, if any (no request).
    public func cachedConversation(_ id: String) -> Conversation? { try? database().conversation(id: id) }

    /// A full id, or the one conversation whose id starts with `id` (at least 4 characters):
    /// a cached one, else, online, one the server has (the conversation list is brought up to
    /// date by what changed, then looked in again), so a short id works on a new profile too.
    /// - Throws: ``CoachError/conversationNotFound(id:)``, ``CoachError/ambiguousID(prefix:matches:)``
    ///   (the candidates, each with its title), ``CoachError/notCached(what:reason:)`` when the
    ///   server could not be asked; an expired session's ``AuthError``.
    public func resolve(_ id: String) async throws -> String {
        let id = id.lowercased()
        if id.count == 36 { return id }
        guard id.count >= 4 else { throw CoachError.conversationNotFound(id: id) }
        if let found = try resolveCached(id) { return found }
        guard !offline else { throw CoachError.conversationNotFound(id: id) }
        do {
            _ = try await fetchConversations()
        } catch let error as any BradOSError where CoachPlugin.cachePolicy.answers(error) {
            throw CoachError.notCached(what: "a conversation whose id starts with \(id)", reason: Self.reason(error))
        }
        if let found = try resolveCached(id) { return found }
        throw CoachError.conversationNotFound(id: id)
    }

    /// The one cached conversation whose id starts with `prefix`; `nil` when none does.
    /// - Throws: ``CoachError/ambiguousID(prefix:matches:)``.
    private func resolveCached(_ prefix: String) throws -> String? {
        let matches = (try? database().conversations(idPrefix: prefix, userID: try? userID())) ?? []
        switch matches.count {
        case 0: return nil
        case 1: return matches[0].id
        default: throw CoachError.ambiguousID(prefix: prefix, matches: matches.map { "\($0.id.prefix(8))  \(SafeText.visible($0.title ?? "(untitled)"))" })
        }
    }

    func requireUserID() throws -> String {
        if offline { throw NetworkError.offlineMode }
        guard let user = try userID() else { throw CoachError.noUserID(profile: profile) }
        return user
    }

    func cacheWrite(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch {
            logger.warning("could not update the coach cache (\(what)): \(error.logText)")
        }
    }

    /// Why the store cannot be read, when it is a full disk (SQLite needs room for its
    /// `-wal` and `-shm` files to open a database): said as such (exit 10), never as "nothing
    /// cached". `nil` otherwise.
    func unreadableStore() -> (any Error)? {
        do {
            _ = try database()
            return nil
        } catch where (error as? any BradOSError)?.kind == .diskFull {
            return error
        } catch {
            return nil
        }
    }

    static func reason(_ error: any Error) -> String {
        if case NetworkError.offlineMode? = error as? NetworkError { return DataSource.offlineReason }
        return error.summaryText
    }
}

extension CoachRepository {
    /// The conversation list, the stored copy first.
    /// - Parameter full: download the whole list rather than what changed (`--full`).
    public func conversationList(full: Bool) -> ConversationList { ConversationList(repository: self, full: full) }
    /// The conversation list, the stored copy first, refreshed by what changed.
    public var conversationList: ConversationList { conversationList(full: false) }

    /// A conversation and its messages, the stored copy first.
    /// - Parameters:
    ///   - id: a full id, or its start (``resolve(_:)``).
    ///   - last: read only the last N messages from the store (the refresh still brings in every change).
    ///   - around: read only the messages around this one (an id or its start): `context` on each side.
    ///   - full: download every message rather than what changed (`--full`).
    /// - Throws: as ``resolve(_:)``.
    public func thread(_ id: String, last: Int? = nil, around: String? = nil, context: Int = 5, full: Bool = false) async throws -> Thread {
        Thread(repository: self, id: try await resolve(id), last: last, around: around, context: context, full: full)
    }

    /// The context profile: from the store while younger than `coach.context-ttl`.
    /// - Parameter refresh: ask the server first even within the TTL (the stored copy still
    ///   answers a failure it can: no network, a failing server).
    public func context(refresh: Bool = false) -> Context { Context(repository: self, refresh: refresh) }

    /// See ``CoachRepository/conversationList``.
    public struct ConversationList: CachedResource {
        let repository: CoachRepository
        let full: Bool
        public var noun: String { "conversations" }
        public var policy: CachePolicy { CoachPlugin.cachePolicy }
        public func stored() -> CachedEntry<[Conversation]>? {
            (try? repository.database().conversations(userID: try? repository.userID())).flatMap { cached in
                cached.syncedAt != nil || !cached.conversations.isEmpty ? CachedEntry(cached.conversations, savedAt: cached.syncedAt) : nil
            }
        }

        public func fetch(progress: @escaping FetchProgress) async throws -> [Conversation] { try await repository.fetchConversations(full: full) }
        public func unavailable(_ failure: any Error) -> any Error {
            repository.unreadableStore() ?? CoachError.notCached(what: "the conversation list", reason: CoachRepository.reason(failure))
        }
        /// `brados coach revalidate`.
        public var backgroundRefresh: BackgroundRefresh? {
            repository.refreshStamps.map { BackgroundRefresh(command: ["coach", "revalidate"], stamp: $0("conversations")) }
        }
    }

    /// See ``CoachRepository/thread(_:)``.
    public struct Thread: CachedResource {
        let repository: CoachRepository
        /// The resolved (full) id.
        public let id: String
        /// Only the last N messages are read from the store.
        let last: Int?
        /// Only the messages around this one, `context` on each side.
        var around: String? = nil
        var context = 5
        let full: Bool
        public var noun: String { "messages" }
        public var policy: CachePolicy { CoachPlugin.cachePolicy }

        public func stored() -> CachedEntry<ConversationThread>? {
            guard let database = try? repository.database(), let conversation = try? database.conversation(id: id),
                  let thread = try? read(conversation, from: database), let syncedAt = thread.syncedAt
            else { return nil }
            return CachedEntry(thread.thread, savedAt: syncedAt)
        }

        /// What is shown, from the store: the last N messages read, or a handle that reads them all as they are shown.
        func read(_ conversation: Conversation, from database: CoachCache) throws -> (thread: ConversationThread, syncedAt: Date?) {
            if let around {
                let shown = try database.messages(conversationID: id, around: around, context: context)
                return (ConversationThread(conversation: conversation, messages: shown.messages, total: shown.before + shown.messages.count + shown.after,
                                           marked: shown.marked, earlier: shown.before, later: shown.after), shown.syncedAt)
            }
            if let last {
                let shown = try database.messages(conversationID: id, last: last)
                return (ConversationThread(conversation: conversation, messages: shown.messages, total: shown.total), shown.syncedAt)
            }
            let held = try database.messageCount(conversationID: id)
            return (ConversationThread(conversation: conversation, messages: [], total: held.total,
                                       stored: StoredMessages(database: database, conversationID: id)), held.syncedAt)
        }

        /// Brings the conversation up to date by what changed (``CoachRepository/refreshThread(_:id:full:)``),
        /// then reads what is shown from the store. A store that cannot be read or written
        /// never fails it: every message is then fetched and shown.
        /// - Throws: ``CoachError/conversationNotFound(id:)`` (the cached copy is removed then), ``NetworkError``, ``AuthError``.
        public func fetch(progress: @escaping FetchProgress) async throws -> ConversationThread {
            let api = try await repository.api()
            _ = try repository.requireUserID()
            do {
                guard let conversation = try await repository.refreshThread(api, id: id, full: full) else { throw CoachError.conversationNotFound(id: id) }
                return try read(conversation, from: repository.database()).thread
            } catch let error as StorageError {
                repository.logger.warning("could not update the coach cache (messages): \(error.logText)")
                guard let remote = try await api.conversation(id: id) else { throw CoachError.conversationNotFound(id: id) }
                let all = try await api.messages(conversationID: id, createdSince: nil)
                return ConversationThread(conversation: remote.conversation, messages: last.map { Array(all.suffix($0)) } ?? all, total: all.count)
            }
        }

        public func unavailable(_ failure: any Error) -> any Error {
            let what = repository.cachedConversation(id) == nil ? "conversation \(id)" : "the messages of conversation \(id)"
            return repository.unreadableStore() ?? CoachError.notCached(what: what, reason: CoachRepository.reason(failure))
        }
        /// `brados coach revalidate --conversation ID`.
        public var backgroundRefresh: BackgroundRefresh? {
            repository.refreshStamps.map { BackgroundRefresh(command: ["coach", "revalidate", "--conversation", id], stamp: $0("thread-\(id)")) }
        }
    }

    /// See ``CoachRepository/context(refresh:)``.
    public struct Context: CachedResource {
        let repository: CoachRepository
        let refresh: Bool
        public var noun: String { "context profile" }
        public var policy: CachePolicy { refresh ? .remoteFirst : CoachPlugin.contextPolicy(ttl: repository.contextTTL) }
        public func stored() -> CachedEntry<ContextProfile?>? {
            guard let user = try? repository.userID(), let cached = try? repository.database().contextProfile(userID: user) else { return nil }
            return CachedEntry(cached.profile, savedAt: cached.cachedAt)
        }

        public func fetch(progress: @escaping FetchProgress) async throws -> ContextProfile? {
            let api = try await repository.api()
            let user = try repository.requireUserID()
            let profile = try await api.contextProfile(userID: user)
            repository.cacheWrite("context profile") {
                if let profile { try repository.database().saveContextProfile(profile, at: repository.now()) } else { try repository.database().markNoContextProfile(userID: user, at: repository.now()) }
            }
            return profile
        }

        public func unavailable(_ failure: any Error) -> any Error {
            repository.unreadableStore() ?? CoachError.notCached(what: "your context profile", reason: CoachRepository.reason(failure))
        }
        /// `brados coach revalidate --context` (not for `--refresh`, which asks first).
        public var backgroundRefresh: BackgroundRefresh? {
            refresh ? nil : repository.refreshStamps.map { BackgroundRefresh(command: ["coach", "revalidate", "--context"], stamp: $0("context")) }
        }
    }
}
