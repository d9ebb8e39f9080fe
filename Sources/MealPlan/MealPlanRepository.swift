import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import Logging

/// The meal plan logic behind every `brados mealplan` command: cache first for finalized
/// sessions, the API for everything else.
///
/// - A cached finalized session is served with no request at all.
/// - Otherwise the saved in-progress session id (key-value store) is asked first, then
///   `latest`; a finalized answer is cached.
/// - `new` invalidates the cache; `finalize` writes the re-fetched full session.
public struct MealPlanRepository: Sendable {
    /// The key-value key of the session being critiqued (the app's UserDefaults entry).
    public static let inProgressKey = "mealplan.inProgressSessionId"

    public struct Loaded: Sendable, Equatable {
        public var session: MealPlanSession
        public var source: DataSource
    }

    let cache: any MealPlanCaching
    let defaults: any KeyValueStoring
    /// `--offline`: no request at all.
    let offline: Bool
    let api: @Sendable () async throws -> any MealPlanAPI
    let now: @Sendable () -> Date
    let logger: Logger

    /// - Parameter api: called only when a request is needed (so cached reads never start
    ///   the network stack or the embedded backend).
    public init(cache: any MealPlanCaching, defaults: any KeyValueStoring, offline: Bool = false, now: @escaping @Sendable () -> Date = { Date() },
                logger: Logger = Logger(label: "brados.mealplan"), api: @escaping @Sendable () async throws -> any MealPlanAPI) {
        self.cache = cache
        self.defaults = defaults
        self.offline = offline
        self.api = api
        self.now = now
        self.logger = logger
    }

    /// The store of the command's profile.
    public static func live(_ env: AppEnvironment) -> MealPlanRepository {
        MealPlanRepository(
            cache: MealPlanCache(directory: env.profile.cacheDirectory(for: MealPlanPlugin.domainName), logger: env.logger, now: env.now),
            defaults: env.defaults, offline: env.isOffline, now: env.now, logger: env.logger,
            api: { MealPlanRESTClient(client: try await env.client(for: .account)) })
    }

    /// The id of the plan being critiqued, if any.
    public var inProgressID: String? { defaults.value(String.self, forKey: Self.inProgressKey) }

    /// The latest plan, by ``MealPlanPlugin/cachePolicy``: the cached finalized one without a
    /// request, else from the API (what `mealplan show` and `today` read).
    public var latestPlan: LatestMealPlan { LatestMealPlan(repository: self) }

    /// ``latestPlan``, answered (as a script would get it).
    /// - Throws: ``MealPlanError/noPlanYet``, ``NetworkError`` (offline when not cached), ``AuthError``.
    public func latest() async throws -> Loaded {
        let shown = try await CacheReader(mode: .script, offline: offline, now: now).answer(latestPlan)
        return Loaded(session: shown.value, source: shown.source)
    }

    /// See ``MealPlanRepository/latestPlan``.
    public struct LatestMealPlan: CachedResource {
        let repository: MealPlanRepository
        public var noun: String { "meal plan" }
        public var policy: CachePolicy { MealPlanPlugin.cachePolicy }
        public func stored() -> CachedEntry<MealPlanSession>? { repository.cache.cached().map { .init($0.session, savedAt: $0.cachedAt) } }
        /// - Throws: ``MealPlanError/noPlanYet``, ``NetworkError``, ``AuthError``.
        public func fetch(progress: @escaping FetchProgress) async throws -> MealPlanSession { try await repository.fetch().session }
    }

    /// Bypasses the cache and fetches from the API (the app's long-press), then replaces the
    /// cached plan with the answer. If the fetch fails, the cached plan is kept: nothing is lost.
    public func refresh() async throws -> Loaded {
        try await fetch(replacingCache: true)
    }

    /// Asks the API: the in-progress id first, then `latest`; caches a finalized answer.
    /// - Parameter replacingCache: invalidate the cached plan once an answer has arrived.
    func fetch(replacingCache: Bool = false) async throws -> Loaded {
        let api = try await api()
        var session: MealPlanSession?
        if let id = inProgressID {
            do {
                session = try await api.session(id: id)
                if session?.isFinalized == true {
                    // Finalized elsewhere (another device): it is no longer in progress.
                    try defaults.removeValue(forKey: Self.inProgressKey)
                }
            } catch let error as NetworkError where error.kind == .notFound {
                logger.debug("saved in-progress meal plan no longer exists; forgetting it", metadata: ["id": "\(id)"])
                try defaults.removeValue(forKey: Self.inProgressKey)
            }
        }
        if session == nil { session = try await api.latest() }
        guard let session else { throw MealPlanError.noPlanYet }
        if replacingCache, !session.isFinalized {
            try cache.invalidate()
        } else if session.isFinalized {
            // A refresh replaces the cached plan in one atomic write: if it cannot be written
            // (a full disk), the plan cached before is still there.
            storeQuietly(session, replacing: replacingCache)
        }
        return Loaded(session: session, source: .network)
    }

    /// Caches a fetched plan; a failed write (disk full, read-only) is logged, never fatal:
    /// the plan in hand is still shown, and the plan cached before is kept.
    private func storeQuietly(_ session: MealPlanSession, replacing: Bool = false) {
        do {
            if replacing { try cache.replace(with: session) } else { _ = try cache.store(session) }
        } catch {
            logger.warning("could not cache the meal plan (the copy cached before is kept): \(error.logText)")
        }
    }

    /// Starts a fresh plan: generates a draft, then invalidates the cache (the user is starting
    /// fresh) and remembers the draft's id. A failed generation leaves the cache as it was.
    public func startNew() async throws -> MealPlanSession {
        let draft = try await api().generate()
        try cache.invalidate()
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
        let finalized = try await api.finalize(id: id)
        let refetched = try await api.session(id: id)
        // The full session is what gets cached; if it somehow is not finalized yet, use the finalize answer.
        let full = refetched.isFinalized ? refetched : finalized
        guard full.isFinalized else {
            throw NetworkError.invalidResponse(path: "/api/mealplans/\(id)/finalize", detail: "the server did not mark the plan finalized")
        }
        try cache.invalidate()
        try cache.store(full, finalizedHere: true)
        try defaults.removeValue(forKey: Self.inProgressKey)
        return full
    }

    /// The stable path of the cache file, whether or not it exists.
    public var cacheFileURL: URL { cache.fileURL }

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
    @NullWhenAbsent public var sessionId: String?
    @NullWhenAbsent public var finalizedAt: Date?
    @NullWhenAbsent public var cachedAt: Date?
    @NullWhenAbsent public var ageSeconds: Int?
    @NullWhenAbsent public var sizeBytes: Int64?
    public var path: String
    @NullWhenAbsent public var inProgressSessionId: String?
}
