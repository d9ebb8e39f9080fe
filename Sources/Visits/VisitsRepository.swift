import BradOSCore
import BradOSNetworking
import Foundation
import Logging

/// Visit history logic: the cache with its TTL, fetches, optimistic delete. What the read
/// commands show is declared as ``CachedResource``s (``list``, ``visit(id:)``), carried out by
/// the shared ``CacheReader``. Time is injected (`now`), so TTL tests never wait.
public struct VisitsRepository: Sendable {
    /// 5 minutes by default (config key `visits.ttl`).
    public static let defaultTTL: Duration = .seconds(300)
    /// Reads with a cached fallback retry once, after 0.5 s: the user has something to look at.
    public static let readPolicy = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(500))

    public let cache: VisitsCache
    public let ttl: Duration
    /// The least time between two background revalidations (`visits.min-refresh-interval`).
    public let minRefreshInterval: Duration
    /// When the last one started (`nil`: no limit).
    public let refreshStamp: RefreshStamp?
    /// `--offline`: an expired copy is shown, not fetched (only the log says so here).
    let offline: Bool
    let api: @Sendable () async throws -> any VisitsAPI
    let now: @Sendable () -> Date
    let logger: Logger

    public init(cache: VisitsCache, ttl: Duration = defaultTTL, minRefreshInterval: Duration = .zero, refreshStamp: RefreshStamp? = nil,
                offline: Bool = false, now: @escaping @Sendable () -> Date,
                logger: Logger = Logger(label: "brados.visits"), api: @escaping @Sendable () async throws -> any VisitsAPI) {
        self.cache = cache
        self.offline = offline
        self.ttl = ttl
        self.minRefreshInterval = minRefreshInterval
        self.refreshStamp = refreshStamp
        self.api = api
        self.now = now
        self.logger = logger
    }

    /// The store of the command's profile (TTL from `visits.ttl`).
    /// - Throws: ``ConfigError`` for an invalid TTL.
    public static func live(_ env: AppEnvironment) throws -> VisitsRepository {
        let ttl = try VisitsPlugin.ttlSetting.value(in: env.settings)
        return VisitsRepository(
            cache: VisitsCache.live(env),
            ttl: ttl, minRefreshInterval: try VisitsPlugin.minRefreshIntervalSetting.value(in: env.settings),
            refreshStamp: .of(domain: VisitsPlugin.domainName, in: env.profile), offline: env.isOffline, now: env.now, logger: env.logger,
            api: { VisitsRESTClient(client: try await env.client(for: .account), readPolicy: readPolicy) })
    }

    /// The policy, with this store's TTL.
    public var policy: CachePolicy { VisitsPlugin.cachePolicy(ttl: ttl, minRefreshInterval: minRefreshInterval) }

    /// The visit list, stale-while-revalidate (``VisitsPlugin/cachePolicy(ttl:minRefreshInterval:)``);
    /// in scripts the refresh runs in `brados visits revalidate`, at most one per
    /// `visits.min-refresh-interval`.
    public var list: List { List(repository: self) }

    /// One visit, by the list's policy without background revalidation: a fresh cached copy
    /// as it is; a stale one is asked for first, with the copy as the answer to a failure.
    public func visit(id: String) -> One { One(repository: self, id: id) }

    /// The cached visits; `nil` when none are cached. The verbose log says how old they are
    /// and whether that is valid (spec 001's cache lines): `cache age 142 s (valid)`, or
    /// `cache expired, fetching (age 312 s)`.
    public func entry() -> CachedEntry<[Visit]>? {
        guard let entry = cache.load() else { return nil }
        logger.debug("\(Self.ageLine(age: now().timeIntervalSince(entry.savedAt), policy: policy, offline: offline))")
        // Visits recorded here wait for a refresh to send them: online, the copy is due one.
        return .init(entry.visits, savedAt: entry.savedAt, outdated: entry.pending > 0 && !offline)
    }

    /// The log line for a cached copy `age` seconds old under `policy`.
    static func ageLine(age: TimeInterval, policy: CachePolicy, offline: Bool) -> String {
        let seconds = "\(Int(age.rounded(.down))) s"
        switch policy.state(age: age) {
        case .fresh, .freshDue: return "cache age \(seconds) (valid)"
        case .stale: return offline ? "cache expired (age \(seconds)); offline, showing it" : "cache expired, fetching (age \(seconds))"
        }
    }

    /// Sends the visits recorded here (``VisitsCache/PendingVisit``), then fetches the list
    /// and saves it; a visit sent before with no answer is settled by the list (the server
    /// has one like it: that one; it has none: sent again next time).
    /// - Throws: ``NetworkError``, ``AuthError``; the cache is untouched then.
    /// - Returns: the list, with the visits still not sent (pending).
    public func fetch() async throws -> [Visit] {
        let api = try await api()
        try await sendPending(api)
        // A delete, an add or a logout while the request is in flight wins over its answer.
        let generation = cache.generation()
        let asked = now()
        let visits = try await api.list()
        do { try cache.save(visits, at: now(), expectedGeneration: generation) } catch {
            logger.warning("could not cache visits: \(error.logText)")
        }
        do { try settleUnanswered(serverVisits: visits) } catch {
            logger.warning("could not settle a visit sent without an answer: \(error.logText)")
        }
        // The server's list says what an interrupted delete did.
        do { try cache.settleDeletes(serverIDs: Set(visits.map(\.id)), asked: asked) } catch {
            logger.warning("could not settle an interrupted delete: \(error.logText)")
        }
        return cache.load()?.visits ?? visits
    }

    /// Sends the pending visits in the order they were recorded, each settled as the server
    /// answers: taken (its id now), refused (dropped, and said), no answer (kept, marked
    /// sent); one that cannot reach the server stops the round, the rest wait with it.
    /// - Throws: `CancellationError`; ``StorageError``.
    func sendPending(_ api: any VisitsAPI) async throws {
        for pending in cache.pending() where pending.sentAt == nil && (pending.account == nil || pending.account == cache.account) {
            do {
                let created = try await api.create(pending.visit)
                try cache.settle(pending.id, created: created)
                logger.debug("sent visit \(pending.id) recorded offline: \(created.id)")
            } catch NetworkError.interruptedWrite {
                try cache.markSent(pending.id, at: now())
                return
            } catch let error as NetworkError where error.kind == .rejected || error.kind == .notFound {
                try cache.settle(pending.id, created: nil, refused: error.summary)
            } catch {
                // Offline, a server failure, a session to renew: they stay, and the list is still read.
                logger.debug("visits recorded offline not sent: \(error.logText)")
                return
            }
        }
    }

    /// The pending visits sent without an answer, against the server's list: the server
    /// has one like it that the list holds no other pending for (that is it), or none
    /// (it never arrived: sent again by the next refresh).
    /// - Throws: ``StorageError``.
    func settleUnanswered(serverVisits: [Visit]) throws {
        var taken = Set<String>()
        for pending in cache.pending() where pending.sentAt != nil {
            if let match = serverVisits.first(where: { !taken.contains($0.id) && $0.matches(pending.visit) && ($0.createdAt ?? .distantFuture) >= pending.queuedAt.addingTimeInterval(-60) })
                ?? serverVisits.first(where: { !taken.contains($0.id) && $0.matches(pending.visit) }) {
                taken.insert(match.id)
                try cache.settle(pending.id, created: match)
            } else {
                try cache.markSent(pending.id, at: nil)
            }
        }
    }

    /// Tells what refreshes found about interrupted deletes and visits recorded offline (this
    /// command's or a background one's), once: every visits command calls it as it ends.
    public func tellSettled(_ notice: (String) -> Void) {
        for settled in (try? cache.takeSettled()) ?? [] { notice(settled.sentence) }
        for settled in (try? cache.takeSettledAdds()) ?? [] { notice(settled.sentence) }
    }

    /// What an add came to.
    public enum Added: Sendable, Equatable {
        /// On the server, with its id.
        case created(Visit)
        /// Recorded here: no server took it (offline, unreachable), or it was sent and no
        /// answer came (`unanswered`); the next refresh or `brados sync` sends or settles it.
        case queued(Visit, unanswered: Bool)

        public var visit: Visit {
            switch self {
            case let .created(visit), let .queued(visit, _): visit
            }
        }
    }

    /// Creates a visit and adds it to the cache; with no server to take it (offline, or one
    /// that cannot be reached) it is recorded here and sent by the next refresh, as `plan
    /// weight` queues its change.
    /// - Throws: ``NetworkError`` the server answered with (a refusal, a failure), ``AuthError``, ``StorageError``.
    public func add(_ visit: NewVisit) async throws -> Added {
        let created: Visit
        do { created = try await api().create(visit) } catch let error as NetworkError where error.kind == .offline {
            return .queued(try cache.queue(visit, at: now()), unanswered: false)
        } catch NetworkError.interruptedWrite {
            return .queued(try cache.queue(visit, at: now(), sent: true), unanswered: true)
        }
        // The server has it: a cache that cannot take it (a full disk) is said, not fatal; the
        // next revalidation brings it.
        do { try cache.insert(created) } catch {
            logger.warning("could not add the new visit to the cache (the server has it): \(error.logText)")
        }
        return .created(created)
    }

    /// Deletes a visit optimistically: it leaves the cache at once (`onRemoved` is told, so the
    /// output can say so), then the server is asked. If the server fails, or the command is
    /// interrupted before the request was sent, the cached entry is restored exactly where it
    /// was and the error is thrown. Interrupted after it was sent and before the answer, the
    /// outcome is unknown: the visit stays out of the list, marked, and the next refresh
    /// settles it (never a restore brados cannot know is true). A visit the server does not
    /// have stays removed and is reported as not found.
    /// - Throws: ``VisitsError/notFound(id:)``, ``VisitsError/deleteOutcomeUnknown(id:place:)``, ``NetworkError``, ``AuthError``, `CancellationError`.
    /// - Returns: the deleted visit, when it was cached.
    /// - Parameter onRestored: told when a failure put the cached entry back.
    public func delete(id: String, onRemoved: (Visit) -> Void = { _ in }, onRestored: () -> Void = {}) async throws -> Visit? {
        try await OperationLog.run("visits.delete", logger: logger) { try await deleteNow(id: id, onRemoved: onRemoved, onRestored: onRestored) }
    }

    private func deleteNow(id: String, onRemoved: (Visit) -> Void, onRestored: () -> Void) async throws -> Visit? {
        // A visit recorded here and not sent is only here: it goes, and nothing is asked.
        if let pending = cache.pending().first(where: { $0.id == id }), pending.sentAt == nil {
            try cache.settle(id, created: nil, refused: "deleted before it was sent")
            _ = try? cache.takeSettledAdds()
            onRemoved(pending.asVisit)
            return pending.asVisit
        }
        let removed = try cache.remove(id: id)
        if let removed { onRemoved(removed.visit) }
        do {
            try await api().delete(id: id)
            logger.debug("deleted visit \(id) on the server")
            return removed?.visit
        } catch let error as NetworkError where error.kind == .notFound {
            throw VisitsError.notFound(id: id)
        } catch let NetworkError.interruptedWrite(_, _, _, lost) {
            do { try cache.markUnsettledDelete(id: id, place: removed?.visit.place, at: now()) } catch {
                logger.error("could not mark the interrupted delete of visit \(id): \(error.logText)")
            }
            throw VisitsError.deleteOutcomeUnknown(id: id, place: removed?.visit.place, lost: lost)
        } catch {
            // The server answered with a failure, or Ctrl-C came before the request was sent:
            // the visit is still there. The server's error stays the one reported.
            if let removed {
                do {
                    try cache.restore(removed.visit, at: removed.index)
                    onRestored()
                } catch let restoreError {
                    logger.error("could not restore visit \(id) to the cache: \(restoreError.logText)")
                }
            }
            throw error
        }
    }
}

extension VisitsRepository {
    /// `visits list`: see ``VisitsRepository/list``.
    public struct List: CachedResource {
        let repository: VisitsRepository
        public var noun: String { "visits" }
        public var policy: CachePolicy { repository.policy }
        public func stored() -> CachedEntry<[Visit]>? { repository.entry() }
        public func fetch(progress: @escaping FetchProgress) async throws -> [Visit] { try await repository.fetch() }
        public var backgroundRefresh: BackgroundRefresh? { BackgroundRefresh(command: ["visits", "revalidate"], stamp: repository.refreshStamp) }
    }

    /// `visits show ID`: see ``VisitsRepository/visit(id:)``.
    public struct One: CachedResource {
        let repository: VisitsRepository
        let id: String
        public var noun: String { "visits" }
        public var policy: CachePolicy {
            var policy = repository.policy
            policy.revalidation = .never
            return policy
        }

        public func stored() -> CachedEntry<Visit>? {
            repository.cache.load().flatMap { entry in entry.visits.first { $0.id == id }.map { CachedEntry($0, savedAt: entry.savedAt) } }
        }

        /// - Throws: ``VisitsError/notFound(id:)``, ``NetworkError``, ``AuthError``.
        public func fetch(progress: @escaping FetchProgress) async throws -> Visit {
            do { return try await repository.api().visit(id: id) } catch let error as NetworkError where error.kind == .notFound {
                throw VisitsError.notFound(id: id)
            }
        }

        /// The list's (`brados visits revalidate`): the visit is in it.
        public var backgroundRefresh: BackgroundRefresh? { repository.list.backgroundRefresh }
    }
}
