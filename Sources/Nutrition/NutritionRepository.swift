import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation
import Logging

/// A plan to show, with where it came from and how it changed.
public struct NutritionPlanResult: Sendable, Equatable {
    public var data: NutritionPlan
    public var source: DataSource
    /// Set when the new plan differs significantly from the one before.
    public var change: NutritionPlanChange?
    /// The logged weights cached with the plan.
    public var weights: WeightHistory? = nil
}

/// What `plan sync` (or `plan weight`) did with the queue.
public struct SyncReport: Sendable {
    public var applied: [PendingOperation] = []
    public var dropped: [(operation: PendingOperation, error: any Error)] = []
    /// The retryable failure that stopped the replay, if one did.
    public var stoppedBy: (any Error)?
    /// The plan recomputed after the applied changes.
    public var plan: NutritionPlanResult?
    /// Why the recompute after the changes failed, if it did (the changes still count).
    public var recomputeError: (any Error)?
    public var remaining: [PendingOperation] = []
}

/// The plan's source of truth: a two-tier cache with a TTL (1 hour), fetches with retries
/// and validation, and the offline queue of profile changes. Time is injected (`now`), so
/// TTL tests never wait. Reads follow ``NutritionPlugin/cachePolicy(ttl:)`` through the shared
/// ``CacheReader``:
///
/// - Within half the TTL the cached plan is the answer, with no request.
/// - Past half the TTL, the cached plan is shown at once (past the TTL with a notice of its
///   age) and refreshed behind, in a detached `brados plan revalidate` (``refreshStamp``);
///   `refresh.wait` lets the read wait that long for the answer first.
/// - With nothing cached the plan is fetched; the next read tells what a refresh behind
///   failed with, and an expired session makes it ask the server itself.
/// - A response that fails validation is an error and never replaces the cache.
public struct NutritionRepository: Sendable {
    public static let defaultTTL: Duration = .seconds(3600)
    /// A flow slower than this is reported in the verbose log.
    public static let slowFlow: Duration = .seconds(2)
    /// How long the service keeps a plan before it computes a new one (7 days, seconds): a
    /// cached plan older than that is out of date (``NutritionError/staleData(age:)``).
    public static let serviceWindow: TimeInterval = 7 * 86400

    public let cache: NutritionCache
    public let queue: PendingQueue
    public let ttl: Duration
    /// Where the plan's background refresh keeps its stamp, lock and last failure (`nil`:
    /// none; every refresh runs in the foreground).
    public var refreshStamp: RefreshStamp?
    /// The forms a change is named in to the person (its weight in their `units`).
    public var forms = DisplayForms.standard
    let offline: Bool
    let api: @Sendable () async throws -> any NutritionAPI
    let now: @Sendable () -> Date
    let logger: Logger

    public init(cache: NutritionCache, queue: PendingQueue, ttl: Duration = defaultTTL, offline: Bool, now: @escaping @Sendable () -> Date,
                logger: Logger = Logger(label: "brados.plan"), api: @escaping @Sendable () async throws -> any NutritionAPI) {
        self.cache = cache
        self.queue = queue
        self.ttl = ttl
        self.offline = offline
        self.api = api
        self.now = now
        self.logger = logger
    }

    var ttlSeconds: TimeInterval { TimeInterval(ttl.components.seconds) }

    /// The policy, with this store's TTL.
    public var policy: CachePolicy { NutritionPlugin.cachePolicy(ttl: ttl) }

    /// The plan `plan show`, `targets` and `why` read, by the policy (see the type's summary).
    /// A plan's ``NutritionPlanResult/source`` is set by the presenter from where it came.
    public var currentPlan: CurrentNutritionPlan { CurrentNutritionPlan(repository: self) }

    /// ``currentPlan``, answered (one plan, as a script would get it).
    /// - Throws: ``NutritionError``, ``NetworkError``, ``AuthError`` the policy does not answer with the cache.
    public func current() async throws -> NutritionPlanResult {
        let shown = try await CacheReader(mode: .script, offline: offline, now: now).answer(currentPlan)
        var result = shown.value
        result.source = shown.source
        return result
    }

    /// See ``NutritionRepository/currentPlan``.
    public struct CurrentNutritionPlan: CachedResource {
        let repository: NutritionRepository
        public var noun: String { "plan" }
        public var policy: CachePolicy { repository.policy }
        public func stored() -> CachedEntry<NutritionPlanResult>? {
            repository.cache.load().map { .init(NutritionPlanResult(data: $0.data, source: .network, change: nil, weights: $0.weights), savedAt: $0.cachedAt, outdated: $0.outdatedAt != nil) }
        }

        /// - Throws: ``NutritionError``, ``NetworkError``, ``AuthError``.
        public func fetch(progress: @escaping FetchProgress) async throws -> NutritionPlanResult {
            try await repository.timed("plan fetch") { try await repository.fetch(forceRecompute: false) }
        }

        /// `brados plan revalidate`.
        public var backgroundRefresh: BackgroundRefresh? {
            repository.refreshStamp.map { BackgroundRefresh(command: ["plan", "revalidate"], stamp: $0) }
        }
    }

    /// `plan recompute`: asks the service to compute the plan again.
    public func recompute() async throws -> NutritionPlanResult {
        try await OperationLog.run("plan.recompute", logger: logger) {
            try await timed("plan recompute") { try await fetch(forceRecompute: true, changedHere: true) }
        }
    }

    /// `plan refresh`: drops the process's copy and fetches. The disk copy is replaced only
    /// by a valid answer, so a failed refresh loses nothing.
    public func refresh() async throws -> NutritionPlanResult {
        try await OperationLog.run("plan.refresh", logger: logger) {
            try await timed("plan refresh") {
                cache.invalidateMemoryTier()
                return try await fetch(forceRecompute: false)
            }
        }
    }

    /// Fetches, validates, compares with the previous plan and caches.
    /// - Parameter changedHere: the plan answers a change this profile made (it is cached so).
    /// - Throws: ``NutritionError`` (``NutritionError/invalidTargets(_:)`` leaves the cache as it was), ``NetworkError``, ``AuthError``.
    func fetch(forceRecompute: Bool, changedHere: Bool = false) async throws -> NutritionPlanResult {
        if offline { throw NetworkError.offlineMode }
        let previous = cache.load()
        let started = ContinuousClock.now
        let requestedAt = now()
        let data: NutritionPlan
        let api = try await api()
        // The weights come with the plan, asked at the same time and waited for at most
        // `weightsGrace` after it; without them (an older service, a failure, a slow answer)
        // the cached ones stay.
        let history = Task { await fetchWeights(api) }
        do { data = try await api.generate(forceRecompute: forceRecompute) } catch {
            history.cancel()
            throw NutritionError.map(error)
        }
        let weights = await Self.first(history, within: Self.weightsGrace) ?? previous?.weights
        logger.debug("plan fetched in \(Format.duration(ContinuousClock.now - started))", metadata: ["recomputed": "\(data.recomputed)"])
        try data.validate()
        // Plans are numbered by the service. Another brados may have cached a newer one (a
        // recompute after `plan weight`) while this request was in flight: keep that one.
        // (Only one written meanwhile: a server whose numbering restarted must not be stuck.)
        let stored = cache.storedOnDisk()
        if let stored, stored.cachedAt > requestedAt, stored.data.plan.id > data.plan.id {
            logger.debug("kept the newer cached plan \(stored.data.plan.id) over \(data.plan.id)")
        } else {
            let receivedAt = now()
            // The person's own change, whoever fetches it: a plan answering it (`changedHere`);
            // the first plan after one whose recompute failed (the cache is outdated only so);
            // and the same targets fetched again. A watch that looks only then must not tell
            // the person of their own weight.
            let own = changedHere || stored?.outdatedAt != nil || (stored?.changedHere == true && stored?.data.targets == data.targets)
            do { try cache.save(CachedNutritionPlan(cachedAt: receivedAt, data: data, weights: weights, changedHere: own ? true : nil)) } catch {
                logger.warning("could not cache the plan: \(error.logText)")
            }
            // Every plan received is kept (the cached plan of an older brados first).
            do {
                if try cache.kept.keep(data, at: receivedAt, earlier: previous.map { KeptNutritionPlan(receivedAt: $0.cachedAt, plan: $0.data) }) {
                    logger.debug("kept plan \(data.plan.id)")
                }
            } catch {
                logger.warning("could not keep the plan: \(error.logText)")
            }
        }
        let before = data.previousTargets ?? previous?.data.targets
        return NutritionPlanResult(data: data, source: .network, change: before.flatMap { NutritionPlanChange.significant(from: $0, to: data.targets) }, weights: weights)
    }

    /// The changes queued, oldest first, for showing them (none when the queue cannot be
    /// read: `plan pending` and `plan sync` say why).
    public var queued: [PendingOperation] { (try? queue.all()) ?? [] }

    /// How long the plan waits for its weights once it has come.
    static let weightsGrace: Duration = .seconds(2)

    /// `task`'s value, or `nil` when it takes longer than `limit` (it is cancelled then).
    static func first(_ task: Task<WeightHistory?, Never>, within limit: Duration) async -> WeightHistory? {
        await withTaskGroup(of: WeightHistory??.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: limit)
                return .some(nil)
            }
            let winner = await group.next() ?? nil
            group.cancelAll()
            task.cancel()
            return winner ?? nil
        }
    }

    /// The logged weights, or `nil` (logged at debug level) when they cannot be had.
    func fetchWeights(_ api: any NutritionAPI) async -> WeightHistory? {
        do { return try await api.weights() } catch {
            // The kind of failure only: an answer refused for a value names that weight.
            logger.debug("weights not fetched: \(error.logText)")
            return nil
        }
    }

    /// Whether the plan shown from `source` is a cached copy older than the service's window.
    /// - Returns: ``NutritionError/staleData(age:)`` to tell beside the plan, or `nil`.
    public static func staleness(of source: DataSource) -> NutritionError? {
        guard source.kind == .cache, let age = source.age, age > serviceWindow else { return nil }
        return .staleData(age: age)
    }

    func timed<T>(_ flow: String, _ body: () async throws -> T) async rethrows -> T {
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            if elapsed > Self.slowFlow { logger.info("slow: \(flow) took \(Format.duration(elapsed)) (over \(Format.duration(Self.slowFlow)))") }
            else { logger.debug("\(flow) took \(Format.duration(elapsed))") }
        }
        return try await body()
    }
}
