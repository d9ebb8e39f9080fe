import BradOSCore
import BradOSStorage
import Foundation
import Logging
import Synchronization

/// The plan as cached: when it was saved, and the plan.
public struct CachedNutritionPlan: VersionedDocument, Equatable {
    public static let currentFormatVersion = 1
    public var formatVersion: Int
    public var cachedAt: Date
    public var data: NutritionPlan
    /// The logged weights, fetched with the plan (absent in caches from before they were).
    public var weights: WeightHistory?
    /// When a change the service accepted (a weight, a target) made this plan out of date and
    /// computing a new one failed: shown as expired, with its real age, until one is fetched.
    /// `nil`: it follows the profile (and in caches from before this was kept).
    public var outdatedAt: Date?
    /// This plan was computed after a change this profile sent (a weight, `plan set`,
    /// `plan recompute`): `sync --watch --notify` does not tell the person of their own change.
    public var changedHere: Bool?

    public init(cachedAt: Date, data: NutritionPlan, weights: WeightHistory? = nil, outdatedAt: Date? = nil, changedHere: Bool? = nil) {
        formatVersion = Self.currentFormatVersion
        self.cachedAt = cachedAt
        self.data = data
        self.weights = weights
        self.outdatedAt = outdatedAt
        self.changedHere = changedHere
    }
}

/// The two-tier plan cache: memory for the life of the process, and `plan.json` in the
/// profile's cache folder across runs (atomic writes, 0600); beside it, the plans kept
/// (``KeptNutritionPlans``). A file that does not decode, or
/// of another format version, reads as missing. Thread-safe.
public final class NutritionCache: Sendable {
    public let fileURL: URL
    /// Every plan received, beside the current one (`kept-plans.json`).
    public let kept: KeptNutritionPlans
    private let document: VersionedJSONDocument<CachedNutritionPlan>
    private let memory = Mutex<CachedNutritionPlan?>(nil)

    public init(directory: URL, logger: Logger = Logger(label: "brados.plan")) {
        fileURL = directory.appendingPathComponent("plan.json")
        kept = KeptNutritionPlans(directory: directory, logger: logger)
        document = VersionedJSONDocument(url: fileURL, logger: logger)
    }

    /// The cached plan: from memory, else from disk (then kept in memory).
    public func load() -> CachedNutritionPlan? {
        if let cached = memory.withLock({ $0 }) { return cached }
        guard let cached = document.load() else { return nil }
        memory.withLock { $0 = cached }
        return cached
    }

    /// The plan on disk, whatever the memory tier holds (another process may have written it).
    public func storedOnDisk() -> CachedNutritionPlan? {
        document.load()
    }

    /// Saves the plan in both tiers.
    /// - Throws: ``StorageError`` (memory keeps the plan either way).
    public func save(_ cached: CachedNutritionPlan) throws {
        memory.withLock { $0 = cached }
        try document.save(cached)
    }

    /// Drops the in-memory copy (the next load reads the disk).
    public func invalidateMemoryTier() { memory.withLock { $0 = nil } }

    /// Removes the plan from both tiers.
    /// - Throws: ``StorageError``.
    public func invalidate() throws {
        memory.withLock { $0 = nil }
        try document.remove()
    }
}
