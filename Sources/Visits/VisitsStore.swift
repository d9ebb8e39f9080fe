import BradOSCore
import Foundation
import Logging

/// Visit history logic: the cache with its TTL, fetches, optimistic delete. Commands and
/// ``VisitsListing`` build on it. Time is injected (`now`), so TTL tests never wait.
public struct VisitsStore: Sendable {
    /// 5 minutes by default (config key `visits.ttl`).
    public static let defaultTTL: Duration = .seconds(300)

    public let cache: VisitsCache
    public let ttl: Duration
    let api: @Sendable () async throws -> any VisitsAPI
    let now: @Sendable () -> Date
    let logger: Logger

    public init(cache: VisitsCache, ttl: Duration = defaultTTL, now: @escaping @Sendable () -> Date,
                logger: Logger = Logger(label: "brados.visits"), api: @escaping @Sendable () async throws -> any VisitsAPI) {
        self.cache = cache
        self.ttl = ttl
        self.api = api
        self.now = now
        self.logger = logger
    }

    /// The store of the command's profile (TTL from `visits.ttl`).
    /// - Throws: ``ConfigError`` for an invalid TTL.
    public static func live(_ env: AppEnvironment) throws -> VisitsStore {
        let setting = env.settings.resolve(VisitsPlugin.ttlKey)
        guard let ttl = setting.value.flatMap(parseDuration) else {
            throw ConfigError.invalidValue(key: VisitsPlugin.ttlKey, value: setting.value ?? "", expected: "a duration such as 90s, 5m or 1h")
        }
        return VisitsStore(
            cache: VisitsCache(store: env.defaults, account: env.credentials.load().credential(for: .api)?.userID, logger: env.logger),
            ttl: ttl, now: env.now, logger: env.logger,
            api: { VisitsRESTClient(client: try await env.client(for: .api), readPolicy: VisitsListing.readPolicy) })
    }

    /// The cached visits as the shared ``CachedThenRefresh`` sees them: fresh within the TTL,
    /// stale past it, or missing.
    public func state() -> CachedThenRefresh<[Visit]>.Cached {
        guard let entry = cache.load() else { return .missing }
        let age = now().timeIntervalSince(entry.savedAt)
        let ttlSeconds = TimeInterval(ttl.components.seconds)
        if age >= 0, age < ttlSeconds {
            logger.debug("cache age \(Int(age)) s (valid)")
            return .fresh(entry.visits, age: age)
        }
        logger.debug("cache expired (age \(Int(age)) s)")
        return .stale(entry.visits, age: age)
    }

    /// Fetches the list and saves it.
    /// - Throws: ``NetworkError``, ``AuthError``; the cache is untouched then.
    public func fetch() async throws -> [Visit] {
        // A delete, an add or a logout while the request is in flight wins over its answer.
        let generation = cache.generation()
        let visits = try await api().list()
        do { try cache.save(visits, at: now(), expectedGeneration: generation) } catch {
            logger.warning("could not cache visits: \((error as? any BradOSError)?.summary ?? "\(error)")")
        }
        return visits
    }

    /// One visit: from the cache when there, else from the API.
    /// - Throws: ``VisitsError/notFound(id:)``, ``NetworkError``.
    public func visit(id: String) async throws -> (visit: Visit, cachedAt: Date?, stale: Bool) {
        if let entry = cache.load(), let visit = entry.visits.first(where: { $0.id == id }) {
            return (visit, entry.savedAt, now().timeIntervalSince(entry.savedAt) >= TimeInterval(ttl.components.seconds))
        }
        do {
            return (try await api().visit(id: id), nil, false)
        } catch let error as NetworkError where error.kind == .notFound {
            throw VisitsError.notFound(id: id)
        }
    }

    /// Creates a visit and adds it to the cache.
    public func add(_ visit: NewVisit) async throws -> Visit {
        let created = try await api().create(visit)
        try? cache.insert(created)
        return created
    }

    /// Deletes a visit optimistically: it leaves the cache at once (`onRemoved` is told, so the
    /// output can say so), then the server is asked. If the server fails, the cached entry is
    /// restored exactly where it was and the error is thrown. A visit the server does not have
    /// stays removed and is reported as not found.
    /// - Returns: the deleted visit, when it was cached.
    /// - Parameter onRestored: told when a failure put the cached entry back.
    public func delete(id: String, onRemoved: (Visit) -> Void = { _ in }, onRestored: () -> Void = {}) async throws -> Visit? {
        let removed = try cache.remove(id: id)
        if let removed { onRemoved(removed.visit) }
        do {
            try await api().delete(id: id)
            logger.debug("deleted visit \(id) on the server")
            return removed?.visit
        } catch let error as NetworkError where error.kind == .notFound {
            throw VisitsError.notFound(id: id)
        } catch {
            // Also on Ctrl-C (cancellation). The server's error stays the one reported.
            if let removed {
                do {
                    try cache.restore(removed.visit, at: removed.index)
                    onRestored()
                } catch let restoreError {
                    logger.error("could not restore visit \(id) to the cache: \(restoreError)")
                }
            }
            throw error
        }
    }
}
