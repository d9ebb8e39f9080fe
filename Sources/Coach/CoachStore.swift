import BradOSCore
import Foundation
import Logging

/// Where shown data came from.
public enum CoachSource: Sendable, Equatable {
    /// Fetched now.
    case network
    /// From the local store, saved `age` seconds ago; `reason` says why the network was not used.
    case cache(age: TimeInterval?, reason: String?)
}

/// Coach logic: remote first, cache fallback. Every successful fetch updates the local
/// store; offline (`--offline`) or when the server cannot be reached or fails, the same
/// model types come from the store, marked as cached with their age. A store failure never
/// fails a command: it is logged and the remote data are shown.
public struct CoachStore: Sendable {
    /// 1 hour (config key `coach.context-ttl`).
    public static let defaultContextTTL: Duration = .seconds(3600)

    let database: @Sendable () throws -> CoachDatabase
    let api: @Sendable () async throws -> any CoachAPI
    let userID: @Sendable () throws -> String?
    let offline: Bool
    public let contextTTL: Duration
    let profile: String
    let now: @Sendable () -> Date
    let logger: Logger

    public init(database: @escaping @Sendable () throws -> CoachDatabase, offline: Bool, contextTTL: Duration = defaultContextTTL,
                profile: String = "default", now: @escaping @Sendable () -> Date, logger: Logger = Logger(label: "brados.coach"),
                userID: @escaping @Sendable () throws -> String?, api: @escaping @Sendable () async throws -> any CoachAPI) {
        self.database = database
        self.offline = offline
        self.contextTTL = contextTTL
        self.profile = profile
        self.now = now
        self.logger = logger
        self.userID = userID
        self.api = api
    }

    /// The user's conversations, most recently updated first.
    /// - Throws: ``CoachError/notCached(what:reason:)`` when neither the server nor the store has them.
    public func conversations() async throws -> (conversations: [Conversation], source: CoachSource) {
        do {
            let api = try await api() // signs in to the demo backend first when that is the server
            let user = try requireUserID()
            let listing = try await api.conversations(userID: user)
            cacheWrite("conversations") { try database().saveConversations(listing.rows, userID: user, at: now(), complete: listing.complete) }
            return (listing.rows, .network)
        } catch let error where Self.fallsBack(error) {
            let cached = try? database().conversations(userID: try? userID())
            guard let cached, cached.syncedAt != nil || !cached.conversations.isEmpty else {
                throw offline ? CoachError.notCached(what: "the conversation list", reason: Self.reason(error)) : error
            }
            return (cached.conversations, .cache(age: cached.syncedAt.map { now().timeIntervalSince($0) }, reason: Self.reason(error)))
        }
    }

    /// A conversation and all its messages, in order of creation (ties by id).
    /// - Parameter id: a full id, or a prefix of a cached one.
    /// - Throws: ``CoachError/conversationNotFound(id:)`` (a cached copy of a conversation the
    ///   server no longer has is removed then), ``CoachError/ambiguousID(prefix:matches:)``,
    ///   ``CoachError/notCached(what:reason:)``.
    public func conversation(_ id: String) async throws -> (conversation: Conversation, messages: [Message], source: CoachSource) {
        let resolved = try resolve(id)
        do {
            let api = try await api()
            _ = try requireUserID()
            guard let conversation = try await api.conversation(id: resolved) else {
                cacheWrite("deletion") { try database().deleteConversation(id: resolved) }
                throw CoachError.conversationNotFound(id: resolved)
            }
            let listing = try await api.messages(conversationID: resolved)
            cacheWrite("messages") { try database().saveMessages(listing.rows, of: conversation, at: now(), complete: listing.complete) }
            return (conversation, listing.rows, .network)
        } catch let error where Self.fallsBack(error) {
            guard let store = try? database(), let conversation = try? store.conversation(id: resolved) else {
                throw offline ? CoachError.notCached(what: "conversation \(resolved)", reason: Self.reason(error)) : error
            }
            guard let cached = try? store.messages(conversationID: resolved), cached.syncedAt != nil else {
                throw offline ? CoachError.notCached(what: "the messages of conversation \(resolved)", reason: Self.reason(error)) : error
            }
            return (conversation, cached.messages, .cache(age: cached.syncedAt.map { now().timeIntervalSince($0) }, reason: Self.reason(error)))
        }
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
        let resolved = try resolve(id)
        let cached = try? database().conversation(id: resolved)
        let deleted = try await api().deleteConversation(id: resolved)
        // The server is authoritative: a conversation it does not have leaves the cache too.
        cacheWrite("deletion") { try database().deleteConversation(id: resolved) }
        guard deleted || cached != nil else { throw CoachError.conversationNotFound(id: resolved) }
        if !deleted { logger.info("conversation \(resolved) was already gone on the server; removed the cached copy") }
        return cached
    }

    /// The context profile: from the store while younger than the TTL (no request), else fetched.
    /// - Parameter refresh: ask the server even within the TTL.
    public func contextProfile(refresh: Bool = false) async throws -> (profile: ContextProfile?, source: CoachSource) {
        let user = try? userID()
        let cached = user.flatMap { user in try? database().contextProfile(userID: user) }
        if !refresh, let cached {
            let age = now().timeIntervalSince(cached.cachedAt)
            if age >= 0, age < TimeInterval(contextTTL.components.seconds) {
                logger.debug("context profile cached \(Int(age)) s ago (fresh)")
                return (cached.profile, .cache(age: age, reason: nil))
            }
        }
        do {
            let api = try await api()
            let user = try requireUserID()
            let profile = try await api.contextProfile(userID: user)
            cacheWrite("context profile") {
                if let profile { try database().saveContextProfile(profile, at: now()) } else { try database().markNoContextProfile(userID: user, at: now()) }
            }
            return (profile, .network)
        } catch let error where Self.fallsBack(error) {
            guard let cached else { throw offline ? CoachError.notCached(what: "your context profile", reason: Self.reason(error)) : error }
            return (cached.profile, .cache(age: now().timeIntervalSince(cached.cachedAt), reason: Self.reason(error)))
        }
    }

    /// The cached copy of a conversation, if any (no request).
    public func cachedConversation(_ id: String) -> Conversation? { try? database().conversation(id: id) }

    /// A full id, or the one cached conversation whose id starts with `id`.
    public func resolve(_ id: String) throws -> String {
        let id = id.lowercased()
        if id.count == 36 { return id }
        guard id.count >= 4 else { throw CoachError.conversationNotFound(id: id) }
        let matches = (try? database().conversations(idPrefix: id, userID: try? userID())) ?? []
        switch matches.count {
        case 0: throw CoachError.conversationNotFound(id: id)
        case 1: return matches[0].id
        default: throw CoachError.ambiguousID(prefix: id, matches: matches.map(\.id))
        }
    }

    func requireUserID() throws -> String {
        if offline { throw NetworkError.offlineMode }
        guard let user = try userID() else { throw CoachError.noUserID(profile: profile) }
        return user
    }

    private func cacheWrite(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch {
            logger.warning("could not update the coach cache (\(what)): \((error as? any BradOSError)?.summary ?? "\(error)")")
        }
    }

    /// Failures that make the cached copy the answer: no network (or `--offline`), server
    /// failures, rate limiting. Not a session or key problem (the user must act; the exit
    /// code says so), nor an answer such as "not found".
    static func fallsBack(_ error: any Error) -> Bool {
        guard let error = error as? any BradOSError, !(error is CoachError) else { return false }
        return [.offline, .server, .rateLimited].contains(error.kind)
    }

    /// The reason given when `--offline` (or `BRADOS_OFFLINE`) kept the network off.
    public static let offlineReason = "offline mode"

    static func reason(_ error: any Error) -> String {
        if case NetworkError.offlineMode? = error as? NetworkError { return offlineReason }
        return (error as? any BradOSError)?.summary ?? "\(error)"
    }
}
