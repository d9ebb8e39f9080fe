import BradOSCore
import Foundation
import Logging

/// The meal plan logic behind every `brados mealplan` command: cache first for finalized
/// sessions, the API for everything else.
///
/// - A cached finalized session is served with no request at all.
/// - Otherwise the saved in-progress session id (key-value store) is asked first, then
///   `latest`; a finalized answer is cached.
/// - `new` invalidates the cache; `finalize` writes the re-fetched full session.
public struct MealPlanStore: Sendable {
    /// The key-value key of the session being critiqued (the app's UserDefaults entry).
    public static let inProgressKey = "mealplan.inProgressSessionId"

    /// Where a session came from.
    public enum Source: Sendable, Equatable {
        case cache(cachedAt: Date)
        case network
    }

    public struct Loaded: Sendable, Equatable {
        public var session: MealPlanSession
        public var source: Source
    }

    let cache: any MealPlanCaching
    let defaults: any KeyValueStoring
    let api: @Sendable () async throws -> any MealPlanAPI
    let logger: Logger

    /// - Parameter api: called only when a request is needed (so cached reads never start
    ///   the network stack or the embedded backend).
    public init(cache: any MealPlanCaching, defaults: any KeyValueStoring, logger: Logger = Logger(label: "brados.mealplan"),
                api: @escaping @Sendable () async throws -> any MealPlanAPI) {
        self.cache = cache
        self.defaults = defaults
        self.api = api
        self.logger = logger
    }

    /// The store of the command's profile.
    public static func live(_ env: AppEnvironment) -> MealPlanStore {
        MealPlanStore(
            cache: MealPlanCache(directory: env.profile.cacheDirectory(for: MealPlanPlugin.domainName), logger: env.logger, now: env.now),
            defaults: env.defaults, logger: env.logger,
            api: { MealPlanRESTClient(client: try await env.client(for: .api)) })
    }

    /// The id of the plan being critiqued, if any.
    public var inProgressID: String? { defaults.value(String.self, forKey: Self.inProgressKey) }

    /// The latest plan: the cached finalized one without a request, else from the API.
    /// - Throws: ``MealPlanError/noPlanYet``, ``NetworkError`` (offline when not cached), ``AuthError``.
    public func latest() async throws -> Loaded {
        if let cached = cache.cached() {
            return Loaded(session: cached.session, source: .cache(cachedAt: cached.cachedAt))
        }
        return try await fetch()
    }

    /// Invalidates the cache, then fetches from the API (the app's long-press).
    public func refresh() async throws -> Loaded {
        try cache.invalidate()
        return try await fetch()
    }

    /// Asks the API: the in-progress id first, then `latest`; caches a finalized answer.
    func fetch() async throws -> Loaded {
        let api = try await api()
        var session: MealPlanSession?
        if let id = inProgressID {
            do {
                session = try await api.session(id: id)
            } catch let error as NetworkError where error.kind == .notFound {
                logger.debug("saved in-progress meal plan no longer exists; forgetting it", metadata: ["id": "\(id)"])
                try defaults.removeValue(forKey: Self.inProgressKey)
            }
        }
        if session == nil { session = try await api.latest() }
        guard let session else { throw MealPlanError.noPlanYet }
        if session.isFinalized { try cache.store(session) }
        return Loaded(session: session, source: .network)
    }

    /// Starts a fresh plan: invalidates the cache, generates a draft, remembers its id.
    public func startNew() async throws -> MealPlanSession {
        try cache.invalidate()
        let draft = try await api().generate()
        try defaults.set(draft.id, forKey: Self.inProgressKey)
        return draft
    }

    /// Sends a critique of the plan in progress and returns the revised draft.
    /// - Throws: ``MealPlanError/noPlanInProgress``, ``MealPlanError/alreadyFinalized(id:)``.
    public func critique(_ text: String) async throws -> MealPlanSession {
        guard let id = inProgressID else { throw MealPlanError.noPlanInProgress }
        do {
            return try await api().critique(id: id, text: text)
        } catch let error as NetworkError {
            if case .http(409, _, _, _, _) = error { throw MealPlanError.alreadyFinalized(id: id) }
            throw error
        }
    }

    /// Finalizes the plan in progress, re-fetches the full session and caches it,
    /// replacing the previous one.
    /// - Throws: ``MealPlanError/noPlanInProgress``, ``NetworkError``.
    public func finalize() async throws -> MealPlanSession {
        guard let id = inProgressID else { throw MealPlanError.noPlanInProgress }
        let api = try await api()
        _ = try await api.finalize(id: id)
        let full = try await api.session(id: id)
        try cache.invalidate()
        try cache.store(full)
        try defaults.removeValue(forKey: Self.inProgressKey)
        return full
    }

    /// What `mealplan status` shows.
    public func status(now: Date) -> MealPlanStatus {
        let cached = cache.cached()
        let attributes = FileSystem.attributes(of: cache.fileURL)
        return MealPlanStatus(
            cached: cached != nil, sessionId: cached?.session.id, finalizedAt: cached?.session.finalizedAt,
            cachedAt: cached?.cachedAt, ageSeconds: cached.map { Int(now.timeIntervalSince($0.cachedAt)) },
            sizeBytes: attributes?.size, path: cache.fileURL.path, inProgressSessionId: inProgressID)
    }
}

/// What `brados mealplan status` reports.
public struct MealPlanStatus: Codable, Sendable, Equatable {
    public var cached: Bool
    public var sessionId: String?
    public var finalizedAt: Date?
    public var cachedAt: Date?
    public var ageSeconds: Int?
    public var sizeBytes: Int64?
    public var path: String
    public var inProgressSessionId: String?
}
